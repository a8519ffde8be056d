"""What a page costs on the wire (issue 24), against a real server on loopback (``python -m drmath.serve``).

- the big static assets (plotly.js, Voilà's bundle, the widget extensions) come back gzip-encoded when
  the browser asks, and as they are when it does not;
- a URL that names its content (``?v=`` or a content hash in the file name) is cached a year, immutable;
- the page is not: it carries the visitor's seat cookie, so it is ``private`` and ``no-store``, and the
  kernel API is private too;
- a page sent static first starts with its scenario's static part as compressed once for every visitor
  (``GzipStart``): building and compressing it per visitor was 47 % of the server's samples in a 50-arrival burst.
"""

import gzip
import re
import sys
import urllib.error
import urllib.request
import zlib
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pytest runs with --import-mode=importlib
from conftest import BROWSER, start_voila, stop_voila

from drmath._resources import PLOTLY_STATIC
from drmath.serve.handlers import GZIP_HEADER, GzipStart, Wire
from drmath.serve.static import STATIC_END

pytestmark = pytest.mark.slow

YEAR = 365 * 24 * 3600
LABEXTENSIONS = Path(sys.prefix) / "share" / "jupyter" / "labextensions"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    log = tmp_path_factory.mktemp("voila") / "voila.log"
    proc, url, log = start_voila(log, pool_size=1, cull_interval=30, cull_idle_timeout=120, figures=False)
    yield url
    stop_voila(proc)


def fetch(url, gzip_ok=True):
    """``(status, headers with lower-case names, body as sent)``; the body is not decoded."""
    headers = {"Accept-Encoding": "gzip, deflate, br"} if gzip_ok else {"Accept-Encoding": "identity"}
    request = urllib.request.Request(url, headers={**headers, "Accept": "text/html"})
    try:
        with urllib.request.urlopen(request, timeout=120) as r:
            return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read()
    except urllib.error.HTTPError as e:
        return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read()


def set_cookies(url):
    """The ``Set-Cookie`` headers of a GET of ``url``, and its ``Cache-Control``."""
    request = urllib.request.Request(url, headers={"Accept": "text/html", "Accept-Encoding": "gzip"})
    with urllib.request.urlopen(request, timeout=120) as r:
        r.read()
        return r.headers.get_all("Set-Cookie") or [], r.headers.get("Cache-Control", "")


def big_assets():
    """The largest file of each static handler a cold page loads from: plotly.js (the template's static
    folder), Voilà's biggest bundle chunk (its base template's, served at ``voila/static/``), and the
    ipywidgets extension's biggest chunk."""
    base = Path(sys.prefix) / "share" / "jupyter" / "voila" / "templates" / "base" / "static"
    voila_static = max(base.glob("*.voila.js"), key=lambda p: p.stat().st_size)
    widgets = LABEXTENSIONS / "@jupyter-widgets" / "jupyterlab-manager" / "static"
    widget = max(widgets.glob("*.js"), key=lambda p: p.stat().st_size)
    return [PLOTLY_STATIC, f"voila/static/{voila_static.name}",
            f"voila/labextensions/@jupyter-widgets/jupyterlab-manager/static/{widget.name}"]


def max_age(cache_control):
    match = re.search(r"max-age=(\d+)", cache_control or "")
    return int(match.group(1)) if match else 0


@pytest.mark.parametrize("path", big_assets())
def test_big_assets_are_gzipped_when_asked(server, path):
    status, plain_headers, plain = fetch(server + path, gzip_ok=False)
    assert status == 200 and len(plain) > 100_000, (status, len(plain))
    assert "content-encoding" not in plain_headers  # a client that does not ask gets the file as is
    for _ in range(2):  # the first compresses it, the second is served from what the server kept
        status, headers, body = fetch(server + path)
        assert status == 200
        assert headers.get("content-encoding") == "gzip", headers
        assert "accept-encoding" in headers.get("vary", "").lower()
        assert gzip.decompress(body) == plain
        assert len(body) < 0.5 * len(plain), (len(body), len(plain))  # minified JS gzips to ~25-30 %
        if "content-length" in headers:
            assert int(headers["content-length"]) == len(body)


@pytest.mark.parametrize("path", [PLOTLY_STATIC, "voila/labextensions/@jupyter-widgets/jupyterlab-manager/static/"
                                  + max((LABEXTENSIONS / "@jupyter-widgets" / "jupyterlab-manager" / "static")
                                        .glob("*.*.js"), key=lambda p: p.stat().st_size).name])
def test_hashed_urls_are_cached_a_year_immutable(server, path):
    status, headers, _ = fetch(server + path)
    assert status == 200
    cache_control = headers.get("cache-control", "")
    assert "immutable" in cache_control and "public" in cache_control, cache_control
    assert max_age(cache_control) >= YEAR
    assert "no-cache" not in cache_control


def test_an_unhashed_asset_is_revalidated_within_the_hour(server):
    status, headers, _ = fetch(server + "voila/static/voila.js")
    assert status == 200 and headers.get("etag")
    cache_control = headers.get("cache-control", "")
    assert "immutable" not in cache_control and 0 < max_age(cache_control) <= 3600, cache_control


def test_the_page_is_private_compressed_and_not_cached(server):
    cookies, cache_control = set_cookies(server)
    assert cookies, "the page sets its seat cookie"
    assert "private" in cache_control and "no-store" in cache_control, cache_control
    assert "public" not in cache_control and "immutable" not in cache_control and max_age(cache_control) == 0
    status, headers, body = fetch(server)
    assert status == 200 and headers.get("content-encoding") == "gzip", headers
    html = gzip.decompress(body).decode()
    assert "</html>" in html and len(body) < 0.5 * len(html.encode())


def test_the_kernel_api_is_private(server):
    status, headers, _ = fetch(server + "api/kernels/00000000-0000-0000-0000-000000000000")
    assert status in (403, 404)
    assert "private" in headers.get("cache-control", ""), headers


class _Request:
    path, query, method = "/", "", "GET"
    headers = {"Accept-Encoding": "gzip"}


class _Handler:
    def __init__(self, *transforms):
        self._transforms = list(transforms)


def _page(start, rest, pieces=3):
    """What a client receives of a page that starts with ``start`` and streams ``rest`` in ``pieces`` flushes."""
    wire = Wire(_Request())
    Wire.start_with(_Handler(wire), start)
    step = -(-len(rest) // pieces)
    chunks = [rest[i:i + step] for i in range(0, len(rest), step)]
    _, headers, first = wire.transform_first_chunk(200, {"Content-Type": "text/html"}, start.data + chunks[0],
                                                   False)
    sent = [first] + [wire.transform_chunk(c, i == len(chunks) - 2) for i, c in enumerate(chunks[1:])]
    return headers, sent, chunks


def test_a_static_start_goes_as_compressed_once_and_the_page_streams_on():
    start = GzipStart(b"<html><body>" + b"<p>the static dashboard and explainer</p>" * 2000)
    rest = b"".join(b"<div>live cell %d</div>" % i for i in range(3000)) + b"</body></html>"
    headers, sent, chunks = _page(start, rest)
    assert headers["Content-Encoding"] == "gzip"
    assert sent[0].startswith(start.body), "the start's bytes go as they were compressed, not compressed again"
    assert gzip.decompress(b"".join(sent)) == start.data + rest  # one valid gzip member, CRC and size included
    # each flush decodes at once: the page still renders as it streams
    decoder, seen, expected = zlib.decompressobj(16 + zlib.MAX_WBITS), b"", start.data
    for piece, chunk in zip(sent, chunks):
        seen, expected = seen + decoder.decompress(piece), expected + chunk
        assert seen == expected
    # the same start for a second visitor: the same bytes, not compressed again
    assert _page(start, rest)[1][0][:len(start.body)] == start.body


class _Asset(_Request):
    path = "/voila/static/7155.voila.js"


def _serve_asset(body, chunks_sent):
    """What a client gets of a static asset streamed as tornado's static handler streams it (64 KiB chunks), the
    handler finishing after ``chunks_sent`` chunks (its visitor left: it stops writing, then finishes)."""
    wire, step = Wire(_Asset()), 65536
    chunks = [body[i:i + step] for i in range(0, len(body), step)][:chunks_sent]
    headers = {"Content-Type": "application/javascript", "ETag": '"abc"', "Content-Length": str(len(body))}
    _, headers, first = wire.transform_first_chunk(200, headers, chunks[0], False)
    sent = [first] + [wire.transform_chunk(c, False) for c in chunks[1:]] + [wire.transform_chunk(b"", True)]
    return b"".join(sent)


def test_an_asset_whose_visitor_left_before_its_end_is_not_kept_for_the_next(monkeypatch):
    """A visitor who closed the page while a script streamed poisoned the cache: every later page got the cut
    script and never went live (two clean CI runs: the live page's websocket never opened)."""
    from drmath.serve.handlers import _Compressed

    monkeypatch.setattr(Wire, "compressed", _Compressed(2**24))
    body = b"".join(b"var x%d = %d;\n" % (i, i) for i in range(40000))  # ~0.6 MB, ten chunks
    _serve_asset(body, chunks_sent=2)  # the visitor leaves after two chunks
    assert Wire.compressed.size == 0
    assert gzip.decompress(_serve_asset(body, chunks_sent=99)) == body  # the next visitor gets it whole...
    assert Wire.compressed.size > 0  # ...and it is kept, whole
    assert gzip.decompress(_serve_asset(body, chunks_sent=1)) == body  # from the cache


def test_a_first_chunk_without_its_start_is_compressed_whole():
    start = GzipStart(b"<p>another scenario's start</p>" * 100)
    rest = b"<p>a page that does not begin with it</p>" * 100
    wire = Wire(_Request())
    Wire.start_with(_Handler(wire), start)
    _, _, first = wire.transform_first_chunk(200, {"Content-Type": "text/html"}, rest, True)
    assert not first.startswith(start.body) and gzip.decompress(first) == rest


def test_the_static_start_is_made_once_per_scenario():
    from drmath.serve.pages import _static_start

    scenario = ("<title>t</title><style></style><main></main><script>(function(){var C=1;</script>", "<div></div>",
                "/plotly.js", None, "/")  # its explainer, static dashboard, plotly.js URL, notice and base URL
    one = _static_start(*scenario)
    assert _static_start(*scenario) is one and one.data.endswith(STATIC_END.encode() + b"\n")


def test_a_static_first_page_decodes_to_the_same_static_part_for_every_visitor(server):
    """Two browsers' pages, gzip, and one page as is: the same static part, and a whole page each."""
    pages = []
    for encoding in ("gzip", "gzip", "identity"):
        request = urllib.request.Request(server, headers={**BROWSER, "Accept-Encoding": encoding})
        with urllib.request.urlopen(request, timeout=120) as r:
            body = r.read()
            assert (r.headers.get("Content-Encoding") == "gzip") == (encoding == "gzip")
        pages.append((body, gzip.decompress(body) if encoding == "gzip" else body))
    marker = STATIC_END.encode()
    static = {html[:html.index(marker)] for _, html in pages}
    assert len(static) == 1 and b'id="drmath-preview"' in static.pop()
    assert all(html.rstrip().endswith(b"</html>") for _, html in pages)
    (one, _), (two, _), _ = pages
    head = len(GZIP_HEADER)  # the static part's compressed bytes follow it, the same for both
    assert one[:head + 10_000] == two[:head + 10_000]
