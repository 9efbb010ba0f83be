"""What the plotting scripts share: a colour and an order per backend, names for files."""
import re

# Red and green are left out of the extra colours: the history plots mark steps with them.
BACKEND_COLORS = {"cuda-native": "#1f77b4", "cuda-prelude": "#ff7f0e", "opencl": "#2ca02c", "vendor": "#7f7f7f"}
EXTRA_COLORS = ["#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22"]
BACKEND_ORDER = ["cuda-native", "cuda-prelude", "opencl", "vendor"]


def color_of(backend, _cache={}):
    """The backend's colour; a backend not named above gets the next extra colour, for good."""
    if backend in BACKEND_COLORS:
        return BACKEND_COLORS[backend]
    if backend not in _cache:
        _cache[backend] = EXTRA_COLORS[len(_cache) % len(EXTRA_COLORS)]
    return _cache[backend]


def backend_key(b):
    """Sort key: the known backends in BACKEND_ORDER, then the others by name."""
    return (BACKEND_ORDER.index(b) if b in BACKEND_ORDER else len(BACKEND_ORDER), b)


def slug(text):
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "x"


def unique(seq):
    """seq without repeats, in first-seen order."""
    seen, out = set(), []
    for x in seq:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out
