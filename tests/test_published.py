"""Published numbers, all in one place: each with its quote, source and tolerance.

Each tolerance says why it is what it is. These tests pin the formulas to the
literature; the per-module tests pin them to hand arithmetic.
"""

import pytest

from drmath import checkpoint, reliability, training
from drmath.units import GB, day, hour, minute


def test_llama3_405b_training_compute():
    # Llama 3 (arXiv:2407.21783) §1: "pre-trained using 3.8 × 10^25 FLOPs … a flagship model with
    # 405B trainable parameters on 15.6T text tokens". 6ND gives 3.79e25; the paper rounds to two
    # figures, so 1.5% covers the rounding of 3.8 and no more.
    assert training.training_flops(405e9, 15.6e12) == pytest.approx(3.8e25, rel=0.015)


def test_llama3_405b_pure_compute_days():
    # Llama 3 Table 4: 400 TFLOPs/GPU on 16,384 GPUs. 3.8e25 / (16,384 × 400e12) = 5.80e6 s = 67.1 days
    # of pure compute (domain ref §8). We feed the paper's 3.8e25 through 6ND with D = 3.8e25/(6N), so the
    # only difference is arithmetic: 0.1%.
    tokens = 3.8e25 / (6 * 405e9)
    seconds = training.time_to_train(405e9, tokens, 16_384, 989.4e12, 400e12 / 989.4e12)
    assert seconds / day == pytest.approx(67.1, rel=1e-3)


def test_megatron_gpt3_175b_days():
    # Narayanan et al. 2021 (arXiv:2104.04473) §5.1, eq. (4) with k = 8 (activation recomputation):
    # GPT-3 175B on 300B tokens with 1,024 GPUs at 140 TFLOP/s "≈ 34 days". The formula gives 33.9;
    # the paper rounds to whole days, hence 1%.
    seconds = training.time_to_train(175e9, 300e9, 1024, 140e12, 1.0, flops_per_param_token=8)
    assert seconds / day == pytest.approx(34, rel=0.01)


def test_zero_gpt2_training_state():
    # ZeRO (arXiv:1910.02054) §3.1, via NeMo's memory blog: "a memory requirement of at least 24 GB for
    # a GPT-2 model with 1.5 billion parameters" at 16 bytes per parameter. Exact arithmetic.
    assert checkpoint.checkpoint_bytes(1.5e9, bytes_per_param=16) == pytest.approx(24 * GB)


def test_llama3_mtbf():
    # Llama 3 §3.3.4: "During a 54-day snapshot … 419 were unexpected" on 16,384 GPUs.
    # 54 × 24 / 419 = 3.093 h (domain ref §1, derived); the issue quotes ≈ 3.09 h, so 0.2%.
    rate = 419 / (16_384 * 54 * day)
    assert reliability.cluster_mtbf(16_384, rate) / hour == pytest.approx(3.09, rel=2e-3)


@pytest.mark.parametrize("mtbf, published, rel", [
    # Daly 2006, Figs. 3-5 captions (T_s = 500 h, R = 10 min, δ = 5 min). The formula gives 116.7,
    # 56.7 and 9.14 min; the captions print 117, 57 and 9.1, so the tolerance is the rounding of
    # the printed figure: half a unit of its last digit over the value.
    pytest.param(24 * hour, 117, 0.5 / 117, id="fig3-M24h"),
    pytest.param(6 * hour, 57, 0.5 / 57, id="fig4-M6h"),
    pytest.param(15 * minute, 9.1, 0.05 / 9.1, id="fig5-M15min"),
])
def test_daly_published_optima(mtbf, published, rel):
    assert reliability.daly_interval(5 * minute, mtbf) / minute == pytest.approx(published, rel=rel)


@pytest.mark.parametrize("interval, published", [
    # Kokolis et al. 2024 (arXiv:2410.21680): a 16,000-GPU job on RSC-1 (r_f = 6.5/1,000 node-days),
    # non-blocking writes, gives "E[ETTR] ≈ 0.7 at a 60-min interval and 0.93 at a 5-min interval".
    # With u0 = 5 min the closed form gives 0.684 and 0.932; 0.7 is printed to one figure (±0.05),
    # 0.93 to two (±0.005).
    pytest.param(60 * minute, 0.7, id="60min"),
    pytest.param(5 * minute, 0.93, id="5min"),
])
def test_kokolis_hypothetical_ettr(interval, published):
    mtbf = reliability.cluster_mtbf(16_000, 6.5e-3 / (8 * day))
    value = reliability.ettr(interval, 0.0, 5 * minute, mtbf)
    digits = len(str(published).split(".")[1])
    assert value == pytest.approx(published, abs=0.5 * 10 ** -digits)


def test_kokolis_projected_mttf():
    # Kokolis et al.: projected MTTF "16,384 GPUs → 1.8 h; 131,072 GPUs → 0.23 h" from r_f = 6.5e-3.
    # Reproduced as 1.803 h and 0.225 h (domain ref §2); printed to two figures.
    rate = 6.5e-3 / (8 * day)
    assert reliability.cluster_mtbf(16_384, rate) / hour == pytest.approx(1.8, abs=0.05)
    assert reliability.cluster_mtbf(131_072, rate) / hour == pytest.approx(0.23, abs=0.005)


def test_bloom_checkpoint_size():
    # stas00/ml-engineering: BLOOM-176B checkpoint "2.3 TB". At 14 B/param 176.2e9 params give 2.47e12 B
    # = 2.24 TiB; the figure is most likely binary (domain ref §4), so compare in TiB to 3%.
    from drmath.units import TiB
    assert checkpoint.checkpoint_bytes(176.2e9) / TiB == pytest.approx(2.3, rel=0.03)


def test_google_pb_over_100g():
    # Google Cloud blog: "100 Gbps to 3.2 Tbps cuts a 1 PB transfer from 22.2 h to 0.7 h" (printed to 3
    # and 1 figures).
    from drmath import replication
    from drmath.units import PB, Gbit_per_s
    assert replication.transfer_time(PB, 100 * Gbit_per_s) / hour == pytest.approx(22.2, abs=0.05)
    assert replication.transfer_time(PB, 3200 * Gbit_per_s) / hour == pytest.approx(0.7, abs=0.05)


def test_ec2_p5_price_per_gpu_hour():
    # EC2 Capacity Blocks, p5.48xlarge (8 × H100), us-east-1, late 2024: "$39.33/h = $4.92 per GPU-h"
    # (domain ref, pricing). The per-GPU figure is printed to cents, so half a cent.
    from drmath import presets
    assert presets.PRICES["ec2-capacity-block-h100"].gpu_hour_price == pytest.approx(4.92, abs=0.005)


def test_front_end_share_per_gpu():
    # stas00/ml-engineering network/README.md: a node's front-end network is "typically a single 100-400 Gbps
    # connection"; Llama 3 §3.3.1: "Each server has 8 GPUs". 400 Gbit/s = 50 GB/s over 8 GPUs is 6.25 GB/s
    # per GPU; exact arithmetic.
    from drmath import presets
    from drmath.units import GB_per_s
    assert presets.NODES["h100-hgx"].per_gpu_frontend_bandwidth == pytest.approx(6.25 * GB_per_s)
