r"""A decoder transformer's parameters from its architecture: total (what a checkpoint holds) and active (6·N·D).

A dense model computes with every parameter; a mixture of experts (MoE) holds every expert in its
checkpoint and its training state, while each token runs through only ``experts_per_token`` of them.
So the bytes follow the **total** count :math:`N` and the compute follows the **active** count
:math:`N_a` (Kaplan's C = 6·N·D with N the parameters a token touches).

Each count is a sum of named terms, one formula function each (SwiGLU feed-forward, grouped-query
attention, untied or tied embeddings, RMSNorm vectors); :class:`Architecture` adds them up, and
:meth:`drmath.Plan.explain` shows the terms of the scenario's model.

    >>> from drmath.presets import MODELS
    >>> f"{MODELS['llama3-405b'].params:.5g}"
    '4.0585e+11'
    >>> m = MODELS["mixtral-8x7b"]
    >>> f"{m.params / 1e9:.1f}B total, {m.active_params / 1e9:.1f}B active"
    '46.7B total, 12.9B active'

Biases, position embeddings and non-gated MLPs are not modelled: every architecture here is a
Llama-style decoder (RoPE, SwiGLU, RMSNorm, no biases).

References
----------
.. [1] Llama Team, AI @ Meta, "The Llama 3 Herd of Models," arXiv:2407.21783, 2024, Table 3.
.. [2] A. Q. Jiang et al. (Mistral AI), "Mixtral of Experts," arXiv:2401.04088, 2024, Sec. 2 and Table 1.
.. [3] N. Shazeer, "GLU Variants Improve Transformer," arXiv:2002.05202, 2020 (SwiGLU: three matrices).
.. [4] J. Ainslie et al., "GQA: Training Generalized Multi-Query Transformer Models from Multi-Head
   Checkpoints," arXiv:2305.13245, 2023.
"""

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ._formula import formula
from ._validate import broadcasting, require_flag, require_nonnegative, require_positive, short_repr

__all__ = ["Architecture", "attention_params", "swiglu_params", "router_params", "embedding_params", "norm_params",
           "decoder_params", "ARCHITECTURE_FIELDS"]


# --------------------------------------------------------------------------- the terms


@formula(r"A = d\,h\,d_h + 2\,d\,h_{kv}\,d_h + h\,d_h\,d")
@broadcasting
def attention_params(d_model, heads, kv_heads, head_dim):
    r"""Parameters of one attention block: query, key and value projections and the output projection.

    Parameters
    ----------
    d_model : float or array_like
        Model width :math:`d`. [1]
    heads : float or array_like
        Query heads :math:`h`. [1]
    kv_heads : float or array_like
        Key/value heads :math:`h_{kv}`: :math:`h` for multi-head attention, fewer for grouped-query
        attention [1]_. [1]
    head_dim : float or array_like
        Width of one head :math:`d_h` (usually :math:`d / h`). [1]

    Returns
    -------
    attention_params : float or ndarray
        :math:`A`, no biases. [1]

    Notes
    -----
    .. formula::

    References
    ----------
    .. [1] Ainslie et al. 2023, arXiv:2305.13245 (grouped-query attention: the keys and values have
       :math:`h_{kv}` heads).

    Examples
    --------
    Llama 3 8B (d = 4096, 32 heads, 8 key/value heads of 128):

    >>> attention_params(4096, 32, 8, 128)
    41943040.0
    """
    require_positive(d_model=d_model, heads=heads, kv_heads=kv_heads, head_dim=head_dim)
    return d_model * heads * head_dim + 2 * d_model * kv_heads * head_dim + heads * head_dim * d_model


@formula(r"F = 3\,d\,d_{ff}")
@broadcasting
def swiglu_params(d_model, d_ffn):
    r"""Parameters of one SwiGLU feed-forward block (or one expert): gate, up and down projections.

    Parameters
    ----------
    d_model : float or array_like
        Model width :math:`d`. [1]
    d_ffn : float or array_like
        Feed-forward (hidden) width :math:`d_{ff}`. [1]

    Returns
    -------
    swiglu_params : float or ndarray
        :math:`F`, no biases. [1]

    Notes
    -----
    .. formula::

    References
    ----------
    .. [1] Shazeer 2020, arXiv:2002.05202, eq. (6): FFN_SwiGLU has three weight matrices W, V and W2.

    Examples
    --------
    >>> swiglu_params(4096, 14336)  # Llama 3 8B, and one Mixtral expert
    176160768.0
    """
    require_positive(d_model=d_model, d_ffn=d_ffn)
    return 3 * d_model * d_ffn


@formula(r"R = d\,E")
@broadcasting
def router_params(d_model, experts):
    r"""Parameters of one mixture-of-experts router (gate): one logit per expert.

    Parameters
    ----------
    d_model : float or array_like
        Model width :math:`d`. [1]
    experts : float or array_like
        Routed experts :math:`E` of the layer. [1]

    Returns
    -------
    router_params : float or ndarray
        :math:`R`. [1]

    Notes
    -----
    .. formula::

    References
    ----------
    .. [1] Jiang et al. 2024, arXiv:2401.04088, Sec. 2.1: the gating network is a linear layer
       :math:`W_g` of :math:`d \times E`, followed by a top-k softmax.

    Examples
    --------
    >>> router_params(4096, 8)  # Mixtral 8x7B
    32768.0
    """
    require_positive(d_model=d_model, experts=experts)
    return d_model * experts


@formula(r"W = (2 - t)\,V\,d")
@broadcasting
def embedding_params(vocab, d_model, tied):
    r"""Parameters of the input embedding and the output projection (the LM head).

    Parameters
    ----------
    vocab : float or array_like
        Vocabulary :math:`V`. [1]
    d_model : float or array_like
        Model width :math:`d`. [1]
    tied : bool or array_like
        :math:`t`: True when the output projection reuses the input embedding. [1]

    Returns
    -------
    embedding_params : float or ndarray
        :math:`W`: :math:`2Vd` untied, :math:`Vd` tied. [1]

    Notes
    -----
    .. formula::

    References
    ----------
    .. [1] Llama Team 2024, arXiv:2407.21783, Table 3 and domain reference section 1: Llama 3's counts
       (8.03e9, 70.55e9, 405.85e9) come out with untied input and output embeddings.

    Examples
    --------
    >>> embedding_params(128_256, 4096, False)  # Llama 3 8B
    1050673152.0
    """
    require_positive(vocab=vocab, d_model=d_model)
    require_flag(tied=tied)
    return np.where(tied, 1.0, 2.0) * vocab * d_model


@formula(r"\nu = (2L + 1)\,d")
@broadcasting
def norm_params(d_model, layers):
    r"""Parameters of the normalisation weights: two per layer (before attention and before the feed-forward
    block) and one final norm.

    Parameters
    ----------
    d_model : float or array_like
        Model width :math:`d`. [1]
    layers : float or array_like
        Transformer layers :math:`L`. [1]

    Returns
    -------
    norm_params : float or ndarray
        :math:`\nu`: RMSNorm has a gain vector and no bias. [1]

    Notes
    -----
    .. formula::

    References
    ----------
    .. [1] Llama Team 2024, arXiv:2407.21783, Sec. 3.1 (a standard dense Transformer as in Llama 2: pre-norm
       RMSNorm before attention and before the feed-forward network, and a final norm).

    Examples
    --------
    >>> norm_params(4096, 32)
    266240.0
    """
    require_positive(d_model=d_model, layers=layers)
    return (2 * layers + 1) * d_model


@formula(r"N = W + L\,A + L_0\,F_0 + (L - L_0)\,\left[(E + S)\,F_e + R\right] + \nu",
         active=r"N_a = W + L\,A + L_0\,F_0 + (L - L_0)\,\left[(k + S)\,F_e + R\right] + \nu")
@broadcasting
def decoder_params(embeddings, attention, dense_ffn, expert_ffn, router, norms, layers, dense_layers, experts,
                   shared_experts=0.0):
    r"""Parameters of a decoder transformer, from its terms: total with :math:`E` experts, active with :math:`k`.

    The first :math:`L_0` layers are dense (a feed-forward block :math:`F_0`); the other :math:`L - L_0`
    hold routed experts, shared experts that every token uses, and a router. A dense model has
    :math:`L_0 = L`. Called with every routed expert (:math:`E`) it gives the total, what the checkpoint holds;
    called with the experts a token is routed to (:math:`k`), the active count that sets a token's compute.

    Parameters
    ----------
    embeddings : float or array_like
        :math:`W`, see :func:`embedding_params`. [1]
    attention : float or array_like
        :math:`A` of one layer, see :func:`attention_params`. [1]
    dense_ffn : float or array_like
        :math:`F_0`, one dense layer's feed-forward block, see :func:`swiglu_params`. [1]
    expert_ffn : float or array_like
        :math:`F_e`, one expert, see :func:`swiglu_params`. [1]
    router : float or array_like
        :math:`R` of one expert layer, see :func:`router_params`. [1]
    norms : float or array_like
        :math:`\nu`, see :func:`norm_params`. [1]
    layers : float or array_like
        :math:`L`. [1]
    dense_layers : float or array_like
        :math:`L_0`, in [0, L]. [1]
    experts : float or array_like
        Routed experts counted: :math:`E` for the total, :math:`k` per token for the active count. [1]
    shared_experts : float or array_like, default 0
        :math:`S`, experts every token uses. [1]

    Returns
    -------
    decoder_params : float or ndarray
        :math:`N` (or :math:`N_a`). [1]

    Notes
    -----
    .. formula::

    The active count, with :math:`k` routed experts a token:

    .. formula:: active

    References
    ----------
    .. [1] Derived here: the sum of the terms above, as Llama 3's counts are derived in the domain reference
       section 1 (Table 3 of arXiv:2407.21783), and Mixtral's "47B" total and "13B" active in
       arXiv:2401.04088 Sec. 2.1.

    Examples
    --------
    Llama 3 8B (dense: :math:`L_0 = L = 32`):

    >>> d, L = 4096, 32
    >>> n = decoder_params(embedding_params(128_256, d, False), attention_params(d, 32, 8, 128),
    ...                    swiglu_params(d, 14336), 0.0, 0.0, norm_params(d, L), L, L, 0)
    >>> f"{n:.4g}"
    '8.03e+09'
    """
    require_nonnegative(embeddings=embeddings, attention=attention, dense_ffn=dense_ffn, expert_ffn=expert_ffn,
                        router=router, norms=norms, dense_layers=dense_layers, experts=experts,
                        shared_experts=shared_experts)
    require_positive(layers=layers)
    moe_layers = layers - dense_layers
    require_nonnegative(moe_layers=moe_layers)
    return (embeddings + layers * attention + dense_layers * dense_ffn
            + moe_layers * ((experts + shared_experts) * expert_ffn + router) + norms)


# --------------------------------------------------------------------------- the architecture

_LIMITS = {  # field: (low, high) for a whole number
    "layers": (1, 10_000), "d_model": (1, 1_000_000), "d_ffn": (1, 10_000_000), "heads": (1, 100_000),
    "kv_heads": (1, 100_000), "head_dim": (1, 100_000), "vocab": (1, 100_000_000), "experts": (1, 100_000),
    "experts_per_token": (1, 100_000), "expert_d_ffn": (1, 10_000_000), "dense_layers": (0, 10_000),
    "shared_experts": (0, 100_000),
}


@dataclass(frozen=True, kw_only=True)
class Architecture:
    """A decoder transformer, dense or mixture of experts: what its parameter counts follow from.

    Every count is a whole number, checked on construction: a bad one raises ``ValueError`` naming the
    field, its value and its valid range. ``kv_heads`` defaults to ``heads`` (multi-head attention),
    ``head_dim`` to ``d_model / heads``, ``expert_d_ffn`` to ``d_ffn``. With ``experts == 1`` the model is
    dense and ``dense_layers``, ``experts_per_token``, ``shared_experts`` do not apply.

    >>> a = Architecture(layers=2, d_model=64, d_ffn=256, heads=4, vocab=1000)
    >>> a.params == a.active_params, a.head_dim, a.kv_heads
    (True, 16, 4)
    >>> Architecture(layers=0, d_model=64, d_ffn=256, heads=4, vocab=1000)
    Traceback (most recent call last):
    ...
    ValueError: architecture.layers = 0 is out of range: must be a whole number in [1, 10000]
    """

    name: str = "custom"
    layers: int  #: transformer layers L [1]
    d_model: int  #: model width d (hidden size) [1]
    d_ffn: int  #: feed-forward width of a dense layer (intermediate size) [1]
    heads: int  #: attention (query) heads h [1]
    vocab: int  #: vocabulary V [1]
    kv_heads: int | None = None  #: key/value heads (grouped-query attention); None: heads [1]
    head_dim: int | None = None  #: width of one head; None: d_model / heads [1]
    tied: bool = False  #: the output projection reuses the input embedding
    experts: int = 1  #: routed experts per MoE layer E; 1 is a dense model [1]
    experts_per_token: int = 1  #: routed experts each token uses k [1]
    expert_d_ffn: int | None = None  #: feed-forward width of one expert; None: d_ffn [1]
    dense_layers: int = 0  #: dense layers before the expert layers (DeepSeek's first_k_dense_replace) [1]
    shared_experts: int = 0  #: experts every token uses, beside the routed ones [1]
    source: str = ""  #: where the numbers come from

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"architecture.name = {short_repr(self.name)} is not valid: must be non-empty text")
        if not isinstance(self.source, str):
            raise TypeError(f"architecture.source = {short_repr(self.source)} has the wrong type: must be text")
        if not isinstance(self.tied, (bool, np.bool_)):
            raise TypeError(f"architecture.tied = {short_repr(self.tied)} has the wrong type "
                            f"({type(self.tied).__name__}): must be true or false")
        object.__setattr__(self, "tied", bool(self.tied))
        defaults = {"kv_heads": "heads", "expert_d_ffn": "d_ffn"}
        for name, (low, high) in _LIMITS.items():
            value = getattr(self, name)
            if value is None and name in defaults:
                value = getattr(self, defaults[name])
            elif value is None and name == "head_dim":
                if self.d_model % self.heads:
                    raise ValueError(f"architecture.head_dim is unset and d_model = {self.d_model} is not a multiple "
                                     f"of heads = {self.heads}: give head_dim")
                value = self.d_model // self.heads
            object.__setattr__(self, name, _whole(name, value, low, high))
        if self.heads % self.kv_heads:
            raise ValueError(f"architecture.kv_heads = {self.kv_heads} is not valid: must divide heads = {self.heads}")
        if self.kv_heads > self.heads:
            raise ValueError(f"architecture.kv_heads = {self.kv_heads} is out of range: must be in [1, "
                             f"heads = {self.heads}]")
        if self.experts_per_token > self.experts:
            raise ValueError(f"architecture.experts_per_token = {self.experts_per_token} is out of range: must be "
                             f"in [1, experts = {self.experts}]")
        if self.dense_layers > self.layers:
            raise ValueError(f"architecture.dense_layers = {self.dense_layers} is out of range: must be in "
                             f"[0, layers = {self.layers}]")
        for name in ("params", "active_params"):
            if not getattr(self, name) <= 1e14:
                raise ValueError(f"architecture: {name} = {getattr(self, name):.3g} is out of range: must be at "
                                 "most 1e14")

    @property
    def moe(self):
        """True for a mixture of experts (more than one routed expert)."""
        return self.experts > 1

    def terms(self):
        """The named terms of the counts, each one's formula function applied to this architecture. [1]

        >>> t = Architecture(layers=2, d_model=64, d_ffn=256, heads=4, vocab=1000).terms()
        >>> t["attention"], t["dense_ffn"], t["norms"]
        (16384.0, 49152.0, 320.0)
        """
        d = self.d_model
        moe = self.moe
        return {"embeddings": embedding_params(self.vocab, d, self.tied),
                "attention": attention_params(d, self.heads, self.kv_heads, self.head_dim),
                "dense_ffn": swiglu_params(d, self.d_ffn),
                "expert_ffn": swiglu_params(d, self.expert_d_ffn) if moe else 0.0,
                "router": router_params(d, self.experts) if moe else 0.0,
                "norms": norm_params(d, self.layers),
                "layers": float(self.layers),
                "dense_layers": float(self.dense_layers if moe else self.layers)}

    def _count(self, experts):
        t = self.terms()
        return float(decoder_params(t["embeddings"], t["attention"], t["dense_ffn"], t["expert_ffn"], t["router"],
                                    t["norms"], t["layers"], t["dense_layers"], experts,
                                    self.shared_experts if self.moe else 0))

    @property
    def params(self):
        """Total parameters: every expert, both embeddings unless tied, norms and routers (what the checkpoint and the
        training state hold). [1]"""
        return self._count(self.experts if self.moe else 0)

    @property
    def active_params(self):
        """Parameters a token computes with: the experts it is routed to, shared experts, attention, embeddings,
        norms and routers (the N of C = 6·N·D). Equal to :attr:`params` for a dense model. [1]"""
        return self._count(self.experts_per_token if self.moe else 0)

    def to_dict(self):
        """The fields, with the defaults filled in: ``Architecture.from_dict(a.to_dict()) == a``."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data):
        """An architecture from a mapping of its field names (a TOML ``[training.model]`` table).

        Raises
        ------
        ValueError
            Naming a key that is not a field, and the fields there are.

        Examples
        --------
        >>> Architecture.from_dict({"layers": 2, "d_model": 64, "d_ffn": 256, "heads": 4, "vocab": 1000}).params
        259392.0
        """
        if not isinstance(data, Mapping):
            raise TypeError(f"an architecture must be a table of its fields, got {type(data).__name__}")
        unknown = [k for k in data if k not in ARCHITECTURE_FIELDS]
        if unknown:
            raise ValueError(f"training.model.{unknown[0]} is not an architecture field: the fields are "
                             f"{', '.join(ARCHITECTURE_FIELDS)}")
        missing = [k for k in ("layers", "d_model", "d_ffn", "heads", "vocab") if k not in data]
        if missing:
            raise ValueError(f"training.model is missing {', '.join(missing)}: an architecture needs layers, "
                             "d_model, d_ffn, heads and vocab")
        return cls(**dict(data))

    @classmethod
    def from_config(cls, config, name=None):
        """An architecture from a Hugging Face-style ``config.json``: its parsed mapping, or a path to it.

        A path is read by :func:`drmath.io.models.read_config` (the core reads no file; importing
        :mod:`drmath.io` registers the reader); a mapping is translated here, by :data:`CONFIG_KEYS`.

        Parameters
        ----------
        config : mapping or path
            The config's keys (``num_hidden_layers``, ``hidden_size`` …), or the file.
        name : str, optional
            The architecture's name; default the config's ``_name_or_path`` or ``"config"``.

        Raises
        ------
        ValueError
            Naming a key this does not know (never guessed: :data:`IGNORED_CONFIG_KEYS` lists the keys known not
            to change the count), or a value out of range.

        Examples
        --------
        >>> a = Architecture.from_config({"num_hidden_layers": 2, "hidden_size": 64, "intermediate_size": 256,
        ...                               "num_attention_heads": 4, "vocab_size": 1000, "rope_theta": 1e4})
        >>> a.params
        259392.0
        >>> Architecture.from_config({"num_hidden_layers": 2, "sliding_windw": 4096})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: config key 'sliding_windw' is not known: drmath reads num_hidden_layers, ... and ignores ...
        """
        if not isinstance(config, Mapping):
            from ._moved import HOOKS

            reader = HOOKS.get(_READER)
            if reader is None:
                raise TypeError(f"Architecture.from_config() reads a file through {_READER}: import drmath.io first "
                                "(or call it), or pass the parsed config (a mapping)")
            return reader(config, name=name)
        return _from_config(cls, config, name)


_READER = "drmath.io.models.read_config"

ARCHITECTURE_FIELDS = tuple(f.name for f in dataclasses.fields(Architecture))
"""The fields of :class:`Architecture`, in order: the keys of a ``[training.model]`` table."""

CONFIG_KEYS = {
    "num_hidden_layers": "layers", "hidden_size": "d_model",
    "intermediate_size": "d_ffn", "num_attention_heads": "heads", "num_key_value_heads": "kv_heads",
    "head_dim": "head_dim", "vocab_size": "vocab", "tie_word_embeddings": "tied",
    "num_local_experts": "experts", "n_routed_experts": "experts", "num_experts": "experts",
    "num_experts_per_tok": "experts_per_token", "moe_intermediate_size": "expert_d_ffn",
    "first_k_dense_replace": "dense_layers", "n_shared_experts": "shared_experts",
}
"""The ``config.json`` keys that set an architecture's field (Hugging Face transformers' Llama, Mixtral, Qwen-MoE and
DeepSeek configs)."""

IGNORED_CONFIG_KEYS = frozenset({
    "_name_or_path", "architectures", "model_type", "torch_dtype", "transformers_version", "bos_token_id",
    "eos_token_id", "pad_token_id", "max_position_embeddings", "rope_theta", "rope_scaling", "rms_norm_eps",
    "hidden_act", "initializer_range", "use_cache", "attention_dropout", "attention_bias", "mlp_bias",
    "pretraining_tp", "output_router_logits", "router_aux_loss_coef", "router_jitter_noise", "sliding_window",
    "use_sliding_window", "max_window_layers", "norm_topk_prob", "routed_scaling_factor", "scoring_func",
    "topk_method", "n_group", "topk_group", "aux_loss_alpha", "seq_aux", "ep_size", "dropout", "hidden_dropout",
    "embd_pdrop", "resid_pdrop", "attn_pdrop", "tokenizer_class", "auto_map", "quantization_config",
})
"""``config.json`` keys known not to change the parameter count (dtypes, token ids, positions, norms' epsilon,
routing's training losses): accepted and left out. Any other key is refused by name, among them the keys that would
change the count in a way not modelled here (``shared_expert_intermediate_size``, ``moe_layer_freq``,
``decoder_sparse_step``, ``mlp_only_layers``, ``qk_layernorm``)."""


def _from_config(cls, config, name):
    fields = {}
    for key, value in config.items():
        if key in CONFIG_KEYS:
            field = CONFIG_KEYS[key]
            if field in fields and fields[field] != value:
                raise ValueError(f"config keys disagree on {field}: {key} = {short_repr(value)} against "
                                 f"{short_repr(fields[field])}")
            fields[field] = value
        elif key not in IGNORED_CONFIG_KEYS:
            raise ValueError(f"config key {short_repr(key)} is not known: drmath reads {', '.join(CONFIG_KEYS)} "
                             f"and ignores {', '.join(sorted(IGNORED_CONFIG_KEYS))}")
    if fields.get("experts") is None:  # a dense config may say "num_experts": null
        fields.pop("experts", None)
        fields.pop("experts_per_token", None)
    for optional in ("kv_heads", "head_dim", "expert_d_ffn", "dense_layers", "shared_experts"):
        if fields.get(optional) is None:
            fields.pop(optional, None)
    missing = [k for k, f in CONFIG_KEYS.items() if f in ("layers", "d_model", "d_ffn", "heads", "vocab")
               and f not in fields]
    if missing:
        raise ValueError(f"config is missing {', '.join(missing)}: an architecture needs them")
    label = name or config.get("_name_or_path") or "config"
    return cls(name=str(label), **fields)


def _whole(name, value, low, high):
    where = f"architecture.{name} = {short_repr(value)}"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{where} has the wrong type ({type(value).__name__}): must be a whole number in "
                        f"[{low}, {high}]")
    if not math.isfinite(value) or value != int(value) or not low <= value <= high:
        raise ValueError(f"{where} is out of range: must be a whole number in [{low}, {high}]")
    return int(value)
