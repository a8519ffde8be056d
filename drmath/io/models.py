"""Model configs in: a Hugging Face-style ``config.json`` read into an :class:`~drmath.architecture.Architecture`.

The file is read through the one input guard (:func:`drmath.io.files.read_input`: a regular file, size-capped, or
``"-"`` for standard input); the keys are translated by the core (:meth:`Architecture.from_config
<drmath.architecture.Architecture.from_config>` on the parsed mapping), which names any key it does not know.

    >>> import json, tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "config.json"
    >>> _ = path.write_text(json.dumps({"num_hidden_layers": 32, "hidden_size": 4096, "intermediate_size": 14336,
    ...     "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256, "torch_dtype": "bfloat16"}))
    >>> f"{read_config(path).params:.4g}"
    '8.03e+09'
"""

import json
import os

from ..architecture import Architecture
from . import files

__all__ = ["read_config"]


def read_config(path, name=None):
    """A model's architecture from its ``config.json``.

    Parameters
    ----------
    path : str or os.PathLike
        The file (JSON, one object), or ``"-"`` for standard input.
    name : str, optional
        The architecture's name; default the config's ``_name_or_path``, else the file's folder name (a model
        directory holds ``config.json``), else ``"config"``.

    Returns
    -------
    architecture : Architecture
        Its ``params`` (total) and ``active_params``.

    Raises
    ------
    ValueError
        Naming the file: unreadable, not JSON, not one object, a key drmath does not know, or a value out of range.
    """
    source = files.STDIN_NAME if isinstance(path, str) and path == files.STDIN else os.fspath(path)
    raw = files.read_input(path)
    try:
        config = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ValueError(f"{source}: not a JSON model config: {str(exc).splitlines()[0][:300]}") from None
    if not isinstance(config, dict):
        raise ValueError(f"{source}: a model config must be one JSON object, got {type(config).__name__}")
    if name is None and "_name_or_path" not in config and source != files.STDIN_NAME:
        folder = os.path.basename(os.path.dirname(os.path.abspath(source)))
        name = folder or None
    try:
        return Architecture.from_config(config, name=name)
    except (ValueError, TypeError) as exc:
        raise type(exc)(f"{source}: {exc}") from None
