"""Writing a matplotlib figure as a small PNG, atomically: the plotting scripts' one way out."""
import io
import os
import tempfile


def save_png(fig, path, dpi):
    """Renders fig, reduces it to a 256-colour palette (line plots use a few dozen colours;
    about a third of the RGBA bytes), and writes it through a temporary file in the same
    folder renamed over path, with the permissions a plain open() would give."""
    from PIL import Image  # matplotlib's own dependency; imported here, as matplotlib is

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    buf.seek(0)
    image = Image.open(buf).convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    out_dir = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=out_dir)
    os.close(fd)
    try:
        image.save(tmp, format="PNG", optimize=True)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
