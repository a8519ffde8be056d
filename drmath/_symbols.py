r"""The symbols of the registry's formulas, in words: each derivation's "Where …" line (:func:`where_line`).

A symbol means one thing within a group of quantities: a quantity's own meanings come first, then its group's
(:data:`_BY_GROUP`), then the glossary's (:data:`_GLOSSARY`); :meth:`drmath.quantities.Quantity.where` picks
them. Only the registry reads this module.
"""

import re

__all__ = ["where_line"]


# each card's formula symbols in words: the "where" line of its derivation (symbols absent from a formula are left out)
_SYMBOLS_RPO = {
    r"\mathrm{RPO}_{local}": "the local RPO (the work lost to a GPU or node failure, at worst)",
    r"\mathrm{RPO}_{site}": "the site RPO (the work lost with the whole site, at worst)",
    r"\tau": "the checkpoint interval", "W": "the checkpoint's write (persist) time",
    "k": "the number of checkpoints per off-site copy (every k-th is shipped)",
    "t_{rep}": "the replication time (a copy's trip off-site)", "C": "the run's whole compute time (its progress)",
    "T": "the time between copies the slowest hop can take", "P": "the time between copies entering the pipeline",
    "b_i": "1 when hop i is slower than copies reach it, else 0", "t_i": "hop i's time per copy",
    "r": "the progress a second of wall clock holds, τ/(τ + δ)", r"\delta": "the checkpoint stall"}
_SYMBOLS_RTO = {
    r"\mathrm{RTO}_{local}": "the local RTO", r"\mathrm{RTO}_{site}": "the site RTO",
    "t_{det}": "detecting the failure", "t_{dec}": "deciding to fail over (none for an automatic tier)",
    "t_{resched}": "rescheduling onto spare nodes", "t_{ready}": "the standby's readiness (set by the DR tier)",
    "t_{stage}": "staging the checkpoint onto the standby's storage",
    "t_{launch}": "launching (scheduler, containers, collective init)", "L": "loading the checkpoint",
    "t_{val}": "validating (the first steps reproduce the loss)"}
_SYMBOLS_ETTR = {
    r"\mathrm{ETTR}_{ft}": "the goodput of fault-tolerant replica groups",
    "u": "the time a failed replica group is out (the local RTO)", "R": "the replica groups",
    "t_{step}": "the time of one optimizer step",
    r"\mathrm{ETTR}": "the share of wall-clock time that makes progress", r"\tau": "the checkpoint interval",
    "u_0": "the restart overhead (the local RTO)", "W": "the checkpoint's write (persist) time",
    r"\delta": "the checkpoint stall", "M": "the cluster MTBF",
    "S": "the chance that a gap between interruptions lasts longer than t", "t": "a time into the gap",
    "c": "one checkpoint period (τ + δ)", "k": "the Weibull shape of the gaps (failures.weibull_shape)",
    r"\lambda": "the Weibull scale, set so that the mean gap is M", r"\Gamma": "the gamma function"}
_SYMBOLS_RUN = {
    "T": "the time to train (wall-clock)", "T_{window}": "the run's window (training.window)",
    "k": "FLOPs per parameter per token (6; 8 with full recomputation)",
    "N": "the parameters a token computes with (active; all of a dense model's)",
    "D": "the tokens", "G": "the GPUs", "P": "each GPU's peak FLOP rate", r"\mathrm{MFU}": "the model FLOP utilization",
    r"\mathrm{ETTR}": "the share of wall-clock time that makes progress"}
_SYMBOLS_KEEPS_UP = {"T": "the time between copies the slowest hop can take (its time per copy)",
                     "P": "the time between copies entering the pipeline"}
_SYMBOLS_LOSS = {
    "t_{loss}": "the time lost to a site loss", r"\Delta T": "the schedule slip",
    "E": "the expected value (a site loss at a uniform time in the run)",
    r"\mathrm{RPO}_{site}": "the work lost with the site", r"\mathrm{RTO}_{site}": "the time until training resumes",
    r"\Delta T_{reduced}": "the extra time at reduced capacity"}
_SYMBOLS_REDUCED = {
    r"\Delta T_{reduced}": "the extra time at reduced capacity", "T": "the time to train",
    "G": "the primary's GPUs", "G_s": "the standby's GPUs",
    "R": "the time to rebuild the lost site's capacity (the same for every tier)"}
_SYMBOLS_COST = {
    "C_{DR}": "the total DR cost", "C_{standby}": "the standby's cost over the run",
    "C_{rep}": "replication: egress, off-site storage and the link", "C_x": "the cross-site circuit for gradients "
    "(zero unless both sites train)", "E": "the expected value", "C_{loss}": "the cost of a site loss (fleet time "
    "and the cost of delay)"}
_GLOSSARY = {
    r"\mathrm{RPO}_{local}": "the local RPO", r"\mathrm{RPO}_{site}": "the site RPO", r"\mathrm{RTO}_{local}":
    "the local RTO", r"\mathrm{RTO}_{site}": "the site RTO", "G": "the GPUs", "N": "the parameters",
    r"\tau": "the checkpoint interval", r"\delta": "the checkpoint stall", "W": "the checkpoint's write (persist) time",
    "L": "the checkpoint's load time", "M": "the cluster MTBF", "u_0": "the restart overhead (the local RTO)",
    r"\mathrm{ETTR}": "the share of wall-clock time that makes progress",
    r"\mathrm{MFU}": "the model FLOP utilization", "E": "the expected value", "G_s": "the standby's GPUs",
    "t_{rep}": "the replication time (a copy's trip off-site)", "t_{os}": "the upload to the object store",
    "t_{link}": "the transfer over the link", r"\Delta T": "the expected schedule slip after a site loss",
    r"\Delta T_{reduced}": "the extra time at reduced capacity", "t_{step}": "the time of one optimizer step",
    "n_s": "the sites that train at once (two for multi-site)"}
"""What each symbol of a formula means, for the "where" line of every derivation; :data:`_BY_GROUP` says what the
symbols that mean one thing in one group and another in the next (T, P, k, C, S, H) mean in each."""

_SYMBOLS_SHIPPED = {
    "t_{os}": "the upload to the object store", "t_{link}": "the transfer over the link",
    r"B_{os}^{min}": "the upload rate that just keeps up", "B_{min}": "the link line rate that just keeps up",
    "V": "the bytes shipped over the run", "T_{run}": "the time to train", r"\ell": "the link's latency per copy",
    "S": "the checkpoint size", "c": "the compression ratio of the shipped copy (replication.compression; 1 is none, "
    "and S/c = S)", "B": "the link's line rate",
    r"\eta": "the share of the line rate achieved", "P": "the time between copies entering the pipeline",
    "T": "the time between copies the slowest hop can take"}


_BY_GROUP = {
    "run": {
        "N": "the parameters a token computes with (active; all of a dense model's)",
        "C": "the training compute", "D": "the tokens", "T": "the time to train (wall-clock)",
        "k": "the FLOPs per parameter per token (6; 8 with full recomputation)", "P": "each GPU's peak FLOP rate",
        "T_c": "the compute time (ETTR = 1)", "B_{tok}": "the tokens of one global batch (training.batch_tokens)",
        "H": "the GPU-hours", "C_{run}": "the run's cost",
        "p": "the price of one GPU for one hour (cost.gpu_hour_price)"},
    "checkpoints": {
        "S": "the checkpoint size", "b": "the bytes saved per parameter", "s": "one GPU's shard",
        "B_w": "the filesystem's write bandwidth", "B_r": "the filesystem's read bandwidth",
        "b_w": "one GPU's write bandwidth (checkpoint.per_writer_bandwidth)",
        "b_r": "one GPU's read bandwidth (checkpoint.per_writer_bandwidth)",
        "b_h": "the rate one GPU copies its shard to host memory", r"\tau_{min}": "the interval floor",
        "t_h": "the staging of one GPU's shard to host memory (the async blocking)",
        r"\delta_m": "the blocking time measured on the run (checkpoint.blocking_time)",
        "u_{fs}": "the share of the filesystem's write bandwidth checkpoints take",
        "s_{st}": "the training state per GPU", "b_{st}": "the training state's bytes per parameter",
        "S_{st}": "the whole training state", "H": "each GPU's memory (HBM)",
        "G_{min}": "the fewest GPUs that hold the training state"},
    "cadence": {
        r"\lambda": "each GPU's failure rate", "n": "the number of interruptions", "T": "the time to train",
        r"\tau_Y": "Young's interval", r"\tau_D": "Daly's interval", r"\tau^*": "the optimal interval",
        r"\tau_{min}": "the interval floor", r"\tau_{set}": "the interval set in the scenario (checkpoint.interval)",
        r"\tau_A": "the availability-optimal interval", r"\mathrm{ETTR}_1": "the first-order ETTR",
        r"\mathrm{ETTR}_{ft}": "the goodput of fault-tolerant replica groups",
        "u": "the time a failed replica group is out (the local RTO)", "R": "the replica groups"},
    "replication": {
        "k": "the number of checkpoints per off-site copy (every k-th is shipped)",
        "T_{rep}": "the off-site copy interval set (replication.interval)",
        r"\rho_{os}": "the share of the time the upload is busy", r"\rho_{link}": "the share of the time the link "
        "is busy", r"\rho": "the share of the time the slowest hop is busy", "B_{os}": "the object store's upload rate",
        **_SYMBOLS_SHIPPED},
    "rpo": {
        **_SYMBOLS_RPO, r"\mathrm{loss}_{local}": "the work lost to a GPU or node failure",
        r"\mathrm{loss}_{site}": "the work lost with the whole site",
        "g_i": "the least time between copies reaching hop i", "g_{n+1}": "the least time between copies leaving "
        "the last hop"},
    "rto": {
        **_SYMBOLS_RPO, **_SYMBOLS_RTO, **_SYMBOLS_REDUCED, "T": "the time between copies the slowest hop can take",
        r"\mathrm{RPO}_{site}": "the site RPO (the work lost with the whole site)",
        r"\mathrm{loss}_{site}": "the work lost with the whole site",
        "f": "the standby's size over the primary's", "f_{tier}": "the DR tier's own standby size",
        "f_{set}": "the standby size set in the scenario (failover.standby_fraction)",
        "G_x": "the GPUs held beyond the multi-site split"},
    "cost": {
        "T": "the time to train", "F": "the fleet's cost per unit time", "p": "the price of one GPU for one hour",
        "C_{standby}": "the standby's cost over the run", "r": "the tier's reserved share (a standby GPU's price "
        "over a training GPU's)", "G_x": "the GPUs held beyond the multi-site split",
        "C_{rep}": "the replication cost", "p_e": "the egress price per byte", "V": "the bytes shipped over the run",
        "p_s": "the storage price per byte-month", "S_r": "the bytes kept off-site (the retained copies)",
        "p_l": "the link's price per hour", "B": "the link's line rate",
        "b_i": "the line rate of one port of kind i (10, 100 or 400 Gbit/s)", "p_i": "that port's price per hour",
        "P": "the chance of a site event during the run", r"\lambda_s": "each site's rate of site events",
        "B_x": "the cross-site bandwidth for gradients", "b_g": "the gradient's bytes per parameter",
        "C_x": "the cross-site circuit's cost", "p_b": "the price of one B/s of circuit for an hour",
        "C_{loss}": "the cost of a site loss (fleet time and the cost of delay)",
        "D": "the cost of delay (cost.delay_cost)", "C_{site}": "the cost of a site loss",
        "t_{loss}": "the time lost to a site loss", "C_{goodput}": "the goodput lost, priced at the fleet's cost",
        "C_{DR}": "the total DR cost", "C_{res}": "the total cost of resilience",
        "D^*": "the cost of delay above which the tier pays for itself against cold",
        r"\Delta C": "the tier's extra DR cost over cold's (before the expected loss)",
        r"\Delta L": "the time the tier saves per site loss against cold"},
    "requirements": {
        "m": "the margin (the target minus the value)", "m_i": "each requirement's margin"},  # + each target's
}
"""The meaning of a symbol within one group of quantities, where it differs from :data:`_GLOSSARY`'s."""


def _symbol_at(tex, symbol):
    """Where the TeX ``symbol`` first stands in ``tex`` as a symbol of its own (not part of a longer one), or None.

    Not part of a longer one: ``T`` is not found in ``\\Delta T``, ``\\tau`` not in ``\\tau^*`` nor ``\\tau_D``,
    but ``\\delta`` is in ``\\delta^2`` (a power).
    """
    before = "" if symbol.startswith("\\") else r"(?<![A-Za-z\\_])(?<!_\{)(?<!\\mathrm\{)(?<!\\text\{)(?<!\\Delta )"
    found = re.search(before + re.escape(symbol) + r"(?![A-Za-z0-9_{])(?!\^(?:\*|\{?[A-Za-z]))", tex)
    return None if found is None else found.start()


def where_line(tex, symbols):
    r"""The "where" line of a derivation: each symbol of ``symbols`` that stands in the formula ``tex``, in words.

    Parameters
    ----------
    tex : str
        The formula. [1]
    symbols : dict of str to str
        TeX symbol -> what it means. [1]

    Returns
    -------
    text : str
        Markdown with inline math, the symbols in the order they stand in the formula; ``""`` when none does. [1]

    Examples
    --------
    >>> where_line(r"C = C_x + W", {"W": "write time", "C_x": "cross-site", "k": "unused"})
    'Where $C_x$ is cross-site; $W$ is write time.'
    """
    at = {symbol: _symbol_at(tex, symbol) for symbol in symbols}
    used = [f"${symbol}$ is {symbols[symbol]}" for symbol in sorted((s for s in at if at[s] is not None), key=at.get)]
    return f"Where {'; '.join(used)}." if used else ""
