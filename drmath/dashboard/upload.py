"""The dashboard's upload button: one file from the visitor's disk to the kernel, its size checked first.

ipywidgets' ``FileUpload`` sends whatever file is chosen, whole, in one websocket message; a file over the
server's one-message limit (``drmath.serve.MAX_MESSAGE_SIZE``) makes the server end the visitor's session.
:class:`UploadButton` checks the size in the page against :attr:`~UploadButton.max_bytes` and, over it,
sends only the file's name and size, so the panel can say why in one line and the session lives on. Under
it, the bytes travel as a binary buffer of one custom message. The kernel checks the size again (the page
is not trusted) before handing the bytes on.

Messages from the page (``content``, ``buffers``): ``{"event": "file", "name", "size"}`` with the bytes as
its one buffer; ``{"event": "refused", "name", "size"}`` when the page refused the file for its size;
``{"event": "unreadable", "name", "size"}`` when the browser could not read it. Anything else is ignored.
"""

import anywidget
import traitlets

from .. import _resources

__all__ = ["UploadButton"]

MAX_NAME = 120
"""Most characters of a file's name kept for messages [1]."""


def _name(content):
    """The file name a message gives, one line and bounded; ``upload.csv`` when it gives none."""
    name = content.get("name")
    name = name.replace("\n", " ").replace("\r", " ")[:MAX_NAME] if isinstance(name, str) else ""
    return name or "upload.csv"


class UploadButton(anywidget.AnyWidget):
    """A button that opens the file chooser and sends one file, of at most :attr:`max_bytes`, to the kernel.

    Parameters
    ----------
    max_bytes : int
        Largest file sent [B]; a bigger one is refused in the page, unread.
    accept : str, default ".csv,text/csv"
        What the file chooser offers (the ``accept`` of an ``input[type=file]``).
    description : str, default "upload a file"
        The button's label.

    Notes
    -----
    :meth:`on_file` callbacks get ``(name, raw)`` (``str``, ``bytes``) for a file taken;
    :meth:`on_refused` callbacks get ``(name, size)`` (``str``, ``int`` [B]) for a file over
    :attr:`max_bytes`, refused in the page or here, and ``(name, None)`` for a file the browser could not read.

    Examples
    --------
    >>> got = []
    >>> button = UploadButton(max_bytes=8)
    >>> button.on_file(lambda name, raw: got.append((name, raw)))
    >>> button.on_refused(lambda name, size: got.append((name, size)))
    >>> button.receive({"event": "file", "name": "a.csv", "size": 4}, [b"x,y\\n"])
    >>> button.receive({"event": "file", "name": "b.csv", "size": 4}, [b"0123456789"])
    >>> got
    [('a.csv', b'x,y\\n'), ('b.csv', 10)]
    """

    _esm = _resources.data_file("widgets", "upload.js")
    _css = _resources.data_file("widgets", "upload.css")
    max_bytes = traitlets.Int(0, min=0).tag(sync=True)
    accept = traitlets.Unicode(".csv,text/csv").tag(sync=True)
    description = traitlets.Unicode("upload a file").tag(sync=True)
    disabled = traitlets.Bool(False).tag(sync=True)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._file_callbacks, self._refused_callbacks = [], []
        self.on_msg(lambda _, content, buffers: self.receive(content, buffers))

    def on_file(self, callback):
        """Call ``callback(name, raw)`` with each file taken (at most :attr:`max_bytes` bytes)."""
        self._file_callbacks.append(callback)

    def on_refused(self, callback):
        """Call ``callback(name, size)`` with each file refused for its size [B] (None: unreadable)."""
        self._refused_callbacks.append(callback)

    def receive(self, content, buffers=()):
        """Handle one message from the page: a file (checked for size again) or a refusal.

        Parameters
        ----------
        content : dict
            The message, as the page sent it (see the module's docstring); anything else is ignored.
        buffers : sequence of bytes-like
            The file's bytes, as the one buffer of a ``"file"`` message.
        """
        if not isinstance(content, dict):
            return
        event, name = content.get("event"), _name(content)
        if event == "file" and len(buffers) == 1:
            raw = bytes(buffers[0])
            if len(raw) > self.max_bytes:  # the page said it checked; it may not have
                self._refused(name, len(raw))
            else:
                for callback in self._file_callbacks:
                    callback(name, raw)
        elif event == "refused":
            size = content.get("size")
            self._refused(name, size if isinstance(size, int) and not isinstance(size, bool) and size >= 0
                          else None)
        elif event == "unreadable":
            self._refused(name, None)

    def _refused(self, name, size):
        for callback in self._refused_callbacks:
            callback(name, size)
