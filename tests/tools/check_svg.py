#!/usr/bin/env python3
"""Checks that each FILE is a well-formed SVG document (stdlib only).

usage: check_svg.py FILE...

Each file must parse with xml.etree, have an <svg> root in the SVG namespace
with positive width and height and a viewBox "0 0 W H" matching them, and hold
at least one drawn shape. Exits 1 naming the first problem of each bad file.
"""
import sys
import xml.etree.ElementTree as ET

SVG_NS = "{http://www.w3.org/2000/svg}"
SHAPES = {"rect", "path", "line", "circle", "polyline", "polygon"}


def check(path):
    try:
        root = ET.parse(path).getroot()
    except (ET.ParseError, OSError) as e:
        return f"does not parse: {e}"
    if root.tag != SVG_NS + "svg":
        return f"root is <{root.tag}>, not <svg> in the SVG namespace"
    try:
        w, h = float(root.attrib["width"]), float(root.attrib["height"])
        vb = [float(v) for v in root.attrib["viewBox"].split()]
    except (KeyError, ValueError) as e:
        return f"root needs numeric width, height and viewBox ({e})"
    if w <= 0 or h <= 0:
        return f"width {w} / height {h} must be positive"
    if len(vb) != 4 or vb[0] != 0 or vb[1] != 0 or abs(vb[2] - w) > 1e-6 or abs(vb[3] - h) > 1e-6:
        return f"viewBox {root.attrib['viewBox']!r} does not match width {w} and height {h}"
    shapes = sum(1 for e in root.iter() if e.tag.startswith(SVG_NS) and e.tag[len(SVG_NS):] in SHAPES)
    if shapes == 0:
        return "draws nothing"
    return None


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    bad = 0
    for path in argv[1:]:
        problem = check(path)
        if problem:
            print(f"{path}: {problem}", file=sys.stderr)
            bad += 1
        else:
            print(f"{path}: ok")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
