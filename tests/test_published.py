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


# --------------------------------------------------------------------------- reliability and training (issue 11)


@pytest.mark.parametrize("interval, published", [
    # Kokolis et al. 2024 (arXiv:2410.21680), the same hypothetical as above: "E[ETTR] ≈ 0.7 at a 60-min interval
    # and 0.93 at a 5-min interval" with non-blocking writes (δ = W = 0), which their closed form matched to within
    # 5% of a Monte Carlo. The exact expectation gives 0.720 and 0.935 at u0 = 5 min: inside the printed rounding
    # as well, ±0.05 for the one-figure 0.7 and ±0.005 for the two-figure 0.93.
    pytest.param(60 * minute, 0.7, id="60min"),
    pytest.param(5 * minute, 0.93, id="5min"),
])
def test_kokolis_hypothetical_ettr_exact(interval, published):
    mtbf = reliability.cluster_mtbf(16_000, 6.5e-3 / (8 * day))
    value = reliability.ettr_exact(interval, 0.0, 0.0, 5 * minute, mtbf)
    digits = len(str(published).split(".")[1])
    assert value == pytest.approx(published, abs=0.5 * 10 ** -digits)


def test_saxena_availability_optimal_interval():
    # Saxena, Hukerikar, Blaz, Raj (NVIDIA), arXiv:2410.18124, abstract: the availability-optimal interval is
    # "T_c = T_s + √(2(T_f + T_r)T_s + T_s²)" (domain ref §3), and it "is asymptotically same as lost-time-optimal
    # checkpoint interval [Young's √(2 T_f T_s)] for certain conditions on checkpoint save and recovery time": they
    # coincide when T_s ≪ T_r ≪ T_f. The abstract prints no worked number, so the test is that claim, to first order:
    # T_c / T_Young - 1 = T_s/T_Young + T_r/(2 T_f) + O(T_s/T_f) = 7.57e-4 at T_s = 1 s, T_r = 100 s, T_f = 1e6 s.
    # 1% of that gap covers the neglected T_s/(4 T_f) = 2.5e-7 and nothing more.
    ts, tr, tf = 1.0, 100.0, 1e6
    young = reliability.young_interval(ts, tf)
    gap = reliability.availability_interval(ts, tr, tf) / young - 1
    assert gap == pytest.approx(ts / young + tr / (2 * tf), rel=0.01)


def test_torchtitan_interval_for_an_overhead_budget():
    # TorchTitan DCP post (discuss.pytorch.org, thread 211250; domain ref §5, via a translation) [V2]: "50 s overhead
    # and ≤ 1% waste → checkpoint every 5,000 s". δ/τ ≤ b gives τ = δ/b: exact arithmetic.
    assert reliability.overhead_budget_interval(50.0, 0.01) == pytest.approx(5000.0)


@pytest.mark.parametrize("interruptions, hours", [
    # Llama 3 §3.3.4: "During a 54-day snapshot period of pre-training, we experienced a total of 466 job
    # interruptions. Of these, 47 were planned ... The remaining 419 were unexpected". A measured MTBF, entered
    # directly: 54 × 24 / 419 = 3.09 h, or 2.78 h with the planned ones (domain ref §1, derived), printed to three
    # figures, so half a unit of the last.
    pytest.param(419, 3.09, id="unexpected"),
    pytest.param(466, 2.78, id="all"),
])
def test_llama3_mtbf_from_the_interruption_count(interruptions, hours):
    assert reliability.mtbf_from_count(54 * day, interruptions) / hour == pytest.approx(hours, abs=0.005)


LLAMA3_TABLE5_PRINTED = {
    "Faulty GPU": 30.1, "GPU HBM3 Memory": 17.2, "Software Bug": 12.9, "Network Switch/Cable": 8.4,
    "Host Maintenance": 7.6, "GPU SRAM Memory": 4.5, "GPU System Processor": 4.1, "NIC": 1.7,
    "NCCL Watchdog Timeouts": 1.7, "Silent Data Corruption": 1.4, "GPU Thermal Interface + Sensor": 1.4, "SSD": 0.7,
    "Power Supply": 0.7, "Server Chassis": 0.5, "IO Expansion Board": 0.5, "Dependency": 0.5, "CPU": 0.5,
    "System Memory": 0.5}
"""Llama 3 Table 5's percentages, as printed [%]."""


def test_llama3_table5_shares_from_the_counts():
    # Llama 3 Table 5 (arXiv:2407.21783, p.13) prints each cause's count of the 419 unexpected interruptions and a
    # percentage. Every printed percentage is its count over 419 rounded to 0.1% (so half of 0.1 point), except
    # "Faulty GPU 30.1%": 148/419 = 35.3%, the known erratum (domain ref §1). The text's "GPU issues are the largest
    # category, accounting for 58.7% of all unexpected issues" is the sum of the printed GPU rows, erratum included;
    # by count it is 268/419 = 64.0%.
    table = reliability.LLAMA3_TABLE5
    counts = {cause: n for rows in table.values() for cause, n in rows.items()}
    shares = reliability.interruption_shares(counts)
    assert sum(counts.values()) == 419 and set(shares) == set(LLAMA3_TABLE5_PRINTED)
    for cause, printed in LLAMA3_TABLE5_PRINTED.items():
        expected = 35.3 if cause == "Faulty GPU" else printed
        assert 100 * shares[cause] == pytest.approx(expected, abs=0.05), cause
    assert sum(LLAMA3_TABLE5_PRINTED[cause] for cause in table["GPU"]) == pytest.approx(58.7)
    by_category = reliability.interruption_shares(reliability.LLAMA3_CATEGORY_COUNTS)
    # the category totals by count (domain ref §1, derived), to the same 0.1%
    for category, share in {"GPU": 64.0, "Dependency": 13.4, "Network": 8.4, "Unplanned Maintenance": 7.6,
                            "Host": 5.0, "Unknown": 1.7}.items():
        assert 100 * by_category[category] == pytest.approx(share, abs=0.05), category


@pytest.mark.parametrize("tflops, printed_mfu", [
    # Llama 3 Table 4: "TFLOPs/GPU" 430, 400 and 380 beside "BF16 MFU" 43%, 41% and 38% on H100, whose dense BF16
    # peak is 989.4 TFLOP/s (domain ref §6). Both columns are rounded (TFLOPs to two figures, so ±5; MFU to 1%, so
    # ±0.5 point), so each printed MFU must lie in the range its printed TFLOPs allow, widened by that half point:
    # 400 TFLOPs is 40.4%, printed 41%, which 405 TFLOPs (40.9%) would round to.
    pytest.param(430, 43, id="8192-gpus"),
    pytest.param(400, 41, id="16384-gpus"),
    pytest.param(380, 38, id="16384-gpus-131k-context"),
])
def test_llama3_mfu_from_tflops(tflops, printed_mfu):
    low, high = (training.mfu_from_throughput(x * 1e12, 989.4e12) for x in (tflops - 5, tflops + 5))
    assert low - 0.005 <= printed_mfu / 100 <= high + 0.005


def test_llama31_all_in_throughput_from_gpu_hours():
    # Llama 3.1 model card: 405B took "30.84M" GPU hours on H100-80GB; Llama 3 §1: "3.8 × 10^25 FLOPs". All-in
    # throughput 3.8e25 / (30.84e6 × 3,600 s) = 342 TFLOP/s per GPU, 34.6% of the 989.4 TFLOP/s peak (domain ref §1,
    # derived), printed to three figures: half a unit of the last.
    rate = training.effective_flop_rate(3.8e25, 30.84e6 * hour)
    assert rate / 1e12 == pytest.approx(342, abs=0.5)
    assert 100 * training.mfu_from_throughput(rate, 989.4e12) == pytest.approx(34.6, abs=0.05)


@pytest.mark.parametrize("availability, downtime, printed", [
    # Uptime Institute legacy Tier availability (domain ref §7) [V2]: "I 99.671% 28.8 h; III 99.982% 1.6 h;
    # IV 99.995% 26.3 min" per year (365 days). Each way, half a unit of the last printed digit: 0.05 h or 0.05 min
    # of downtime, 0.0005 points of availability.
    pytest.param(99.671, 28.8 * hour, 0.05 * hour, id="tier-I"),
    pytest.param(99.982, 1.6 * hour, 0.05 * hour, id="tier-III"),
    pytest.param(99.995, 26.3 * minute, 0.05 * minute, id="tier-IV"),
])
def test_uptime_tier_availability_and_downtime_both_ways(availability, downtime, printed):
    assert reliability.downtime_from_availability(availability / 100) == pytest.approx(downtime, abs=printed)
    assert 100 * reliability.availability_from_downtime(downtime) == pytest.approx(availability, abs=0.0005)


def test_uptime_tier_ii_downtime_is_printed_truncated():
    # The same table prints Tier II "99.741% 22 h"; 0.259% of a year is 22.7 h (domain ref §7, derived), so the
    # printed figure is truncated to whole hours, not rounded: it must lie in [22, 23) h.
    assert 22 <= reliability.downtime_from_availability(0.99741) / hour < 23


def test_fsx_lustre_throughput_per_tib():
    # Amazon FSx for Lustre API, PerUnitStorageThroughput: "For a 2.4-TiB file system, provisioning
    # 50 MB/s/TiB of PerUnitStorageThroughput yields 120 MB/s of file system throughput." Exact arithmetic
    # (2.4 x 50), so only float rounding: 1e-12.
    from drmath.units import MB_per_s, TiB
    assert checkpoint.provisioned_bandwidth(2.4 * TiB, 50 * MB_per_s / TiB) == pytest.approx(120 * MB_per_s, rel=1e-12)
    assert checkpoint.capacity_for_bandwidth(120 * MB_per_s, 50 * MB_per_s / TiB) == pytest.approx(2.4 * TiB, rel=1e-12)


def test_zero_trillion_parameters_on_1024_gpus():
    # ZeRO (arXiv:1910.02054) §1: "A trillion-parameter model with an optimizer like Adam in 16 bit precision
    # requires approximately 16 terabytes (TB) of memory ... 16TB divided by 1024 is 16GB, which is well within
    # a reasonable bound for a GPU (e.g., with 32GB of on-device memory)." 1e12 x 16 B / 1024 = 15.6 GB; the
    # paper rounds it to 16 GB, so 2.5% (16 / 15.625 - 1 = 2.4%). The fit and the minimum are exact.
    state = checkpoint.checkpoint_bytes(1e12, 16)
    assert state == pytest.approx(16e12)
    assert checkpoint.shard_bytes(state, 1024) == pytest.approx(16 * GB, rel=0.025)
    assert checkpoint.state_fits_hbm(state, 1024, 32 * GB) is True
    assert checkpoint.min_gpus_for_state(state, 32 * GB) == 500  # 16 TB / 32 GB: half of the 1,024 GPUs


def test_zero_data_parallel_moves_two_psi_per_step():
    # ZeRO (arXiv:1910.02054) §7.1: "Both reduce-scatter and all-gather are implemented using a pipelined
    # approach, that results in a total data movement of Ψ elements (for a data with Ψ elements) for each.
    # Therefore, the standard DP incurs 2Ψ data movement during each training step." The exact ring moves
    # 2(p-1)/p Ψ; ZeRO quotes the large-p limit, so at its N_d = 64 the tolerance is 1/64 and at 1,024, 1/1,024.
    from drmath import cost
    psi = 7.5e9  # ZeRO's Figure 1 example; one byte per element, one second, so bandwidth = elements moved
    for p in (64, 1024):
        assert cost.cross_site_bandwidth(psi, 1.0, sites=p, bytes_per_gradient=1) == pytest.approx(2 * psi, rel=1 / p)
