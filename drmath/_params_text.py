"""The parameter counts in words and formulas: what ``explain("params")`` and ``explain("active_params")`` show.

The counts themselves are :mod:`drmath.architecture`'s (or the scenario's ``training.params`` and
``training.active_share``); this module only writes their derivation for :mod:`drmath.quantities`: each term by its
symbol, the architecture's numbers substituted, and a note saying where the count came from.
"""

from . import architecture
from .formatting import format_quantity

__all__ = ["SYMBOLS", "formula", "substitution", "note"]

SYMBOLS = {
    "N": "the parameters in total (training.params): every expert, what the checkpoint holds",
    "N_a": "the parameters a token computes with (active): the N of C = kND",
    "W": "the embeddings (input and output, once if tied)", "L": "the layers", "A": "one layer's attention",
    "L_0": "the dense layers", "F_0": "one dense feed-forward block (SwiGLU)", "E": "the routed experts of a layer",
    "k": "the routed experts a token uses", "S": "the shared experts", "F_e": "one expert (SwiGLU)",
    "R": "one layer's router", r"\nu": "the norm weights",
    "s": "the share of the parameters a token computes with (training.active_share)"}


def _model(p):
    return p.scenario.training.model


def formula(active):
    def tex(p):
        if _model(p) is None:
            return r"N_a = s\,N" if active else "N"
        return architecture.decoder_params.tex_variants["active"] if active else architecture.decoder_params

    return tex


def substitution(active):
    def substitution(p):
        model = _model(p)
        if model is None:
            return r"<training.active_share|g> \times <params>" if active else None
        t = model.terms()

        def n(x):
            return r"\text{" + format_quantity(x, "params").replace(",", "{,}") + "}"

        experts = model.experts_per_token if active else model.experts
        moe = (rf" + {model.layers - model.dense_layers:g} \times [({experts:g} + {model.shared_experts:g}) \times "
               rf"{n(t['expert_ffn'])} + {n(t['router'])}]") if model.moe else ""
        return (rf"{n(t['embeddings'])} + {t['layers']:g} \times {n(t['attention'])} + {t['dense_layers']:g} \times "
                rf"{n(t['dense_ffn'])}{moe} + {n(t['norms'])}")

    return substitution


def note(active):
    def note(p):
        model = _model(p)
        if model is None:
            if active:
                return ("A dense model (training.active_share = 1): every parameter is active."
                        if p.scenario.training.active_share == 1 else "The share is an input (training.active_share).")
            return "Given as an input (training.params)."
        kind = "a mixture of experts" if model.moe else "dense"
        return (f"Architecture `{model.name}` ({kind}; training.model): {model.layers} layers, d = {model.d_model:,}, "
                f"{model.heads} heads, {model.kv_heads} key/value heads, vocabulary {model.vocab:,}, "
                f"{'tied' if model.tied else 'untied'} embeddings"
                + (f", {model.experts} experts, {model.experts_per_token} a token" if model.moe else "") + ". "
                + ("A token computes with these; the checkpoint holds <params>." if active else
                   "The checkpoint, the training state and the cross-site gradients hold these."))

    return note
