import dataclasses

import pytest

from drmath import presets


def _all():
    return [(reg, p) for reg, registry in presets.REGISTRIES.items() for p in registry.values()]


@pytest.mark.parametrize("registry, preset", _all(), ids=lambda x: getattr(x, "name", x))
def test_every_preset_has_a_source(registry, preset):
    assert preset.source.strip(), f"{registry}/{preset.name} has no source"
    assert len(preset.source) > 20, f"{registry}/{preset.name}: a source names the document and section"


def test_a_preset_without_a_source_cannot_be_made():
    with pytest.raises(TypeError, match="requires a source"):
        presets.Link(name="mystery", bandwidth=1e9, hour_price=1.0, source="  ")


def test_presets_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field"):
        presets.ACCELERATORS["h100-sxm"].peak_flop_rate = 1.0


def test_registry_names_match():
    for registry in presets.REGISTRIES.values():
        for name, preset in registry.items():
            assert preset.name == name


def test_get_unknown_names_the_choices():
    with pytest.raises(ValueError, match=r"'tepid' is not a known preset; choose one of \['cold'"):
        presets.get(presets.DR_TIERS, "tepid")


def test_llama3_rate_matches_the_paper():
    # 419 interruptions / (2,048 nodes × 54 days) = 3.79e-3 per node-day (domain ref §1)
    assert presets.FAILURE_RATES["llama3"].per_node_day == pytest.approx(3.79e-3, rel=1e-3)
    assert presets.FAILURE_RATES["llama3"].gpu_failure_rate * 16_384 * 54 * 86_400 == pytest.approx(419)


def test_eight_gpus_per_node_live_in_the_node_preset():
    # 400 Gbit/s of front-end NIC over 8 GPUs = 50 GB/s / 8 = 6.25 GB/s per GPU
    node = presets.NODES["h100-hgx"]
    assert node.per_gpu_frontend_bandwidth == 6.25e9
    assert all(rate.gpus_per_node == node.gpus for rate in presets.FAILURE_RATES.values())
    # p5.48xlarge is one such node: $39.33/h over its GPUs
    assert presets.PRICES["ec2-capacity-block-h100"].gpu_hour_price == 39.33 / node.gpus
    assert presets.REGISTRIES["nodes"] is presets.NODES


def test_tiers_get_faster_and_dearer():
    order = ["cold", "pilot-light", "warm", "hot"]
    readiness = [presets.DR_TIERS[t].readiness for t in order]
    share = [presets.DR_TIERS[t].reserved_share for t in order]
    assert readiness == sorted(readiness, reverse=True)
    assert share == sorted(share)
    assert all(0 <= t.reserved_share <= 1 and 0 < t.standby_fraction <= 1 for t in presets.DR_TIERS.values())


def test_accelerators_carry_their_hbm():
    # stas00/ml-engineering accelerator table (domain ref §6): 80, 141 and 180 GB, decimal as printed
    hbm = {name: a.hbm for name, a in presets.ACCELERATORS.items()}
    assert hbm == {"h100-sxm": 80e9, "h200-sxm": 141e9, "b200-sxm": 180e9}
    assert all("HBM" in a.source for a in presets.ACCELERATORS.values())


def test_every_tier_shares_one_rebuild_assumption():
    assert {t.rebuild_time for t in presets.DR_TIERS.values()} == {presets.SITE_REBUILD_TIME}
    assert presets.DR_TIERS["cold"].readiness == presets.SITE_REBUILD_TIME == 21 * 86_400
    assert {name: t.sites for name, t in presets.DR_TIERS.items() if t.sites != 1} == {"multi-site": 2}


def test_multi_site_states_every_assumption():
    tier = presets.DR_TIERS["multi-site"]
    text = tier.assumptions
    for needle in ("either site", "1 - exp(-2", "rebuilt", "3 weeks", "all-reduces the gradients", "ZeRO",
                   "priced per bandwidth", "98.95-99.41%"):
        assert needle in text, needle
    assert "ZeRO" in tier.source and "OFC" in tier.source


def test_link_price_per_bandwidth():
    from drmath.units import Gbit_per_s

    # $85/h over 400 Gbit/s = $0.2125 per Gbit/s-hour; $22.50 over 100 = $0.225
    assert presets.LINKS["dx-400g"].bandwidth_hour_price * Gbit_per_s == pytest.approx(0.2125)
    assert presets.LINKS["dx-100g"].bandwidth_hour_price * Gbit_per_s == pytest.approx(0.225)


def test_provisioned_storage_rates():
    from drmath.units import MB_per_s

    per_tib = {name: s.per_tib / MB_per_s for name, s in presets.PROVISIONED_STORAGE.items()}
    assert [per_tib[f"fsx-lustre-persistent2-{r}"] for r in (125, 250, 500, 1000)] == [125, 250, 500, 1000]
    assert [per_tib[f"fsx-lustre-persistent1-{r}"] for r in (50, 100, 200)] == [50, 100, 200]
    assert per_tib["fsx-lustre-persistent1-hdd-12"] == pytest.approx(12)
    assert per_tib["gcp-managed-lustre-dynamic"] == pytest.approx(25)
    assert presets.REGISTRIES["provisioned_storage"] is presets.PROVISIONED_STORAGE


def test_llama3_global_batch():
    # Table 4: 8,192 tokens x 32 sequences per DP group x 64 DP groups, printed "16M"
    assert presets.GLOBAL_BATCHES["llama3-405b"].tokens == 16 * 2**20
    assert [b.value for b in presets.BYTES_PER_GRADIENT.values()] == [2.0, 4.0]
