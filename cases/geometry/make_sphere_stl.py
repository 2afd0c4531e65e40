#!/usr/bin/env python3
"""Writes sphere-ascii.stl and sphere-binary.stl beside this script: the unit
sphere at the origin as an icosahedron subdivided twice (320 triangles, the
vertices projected on the sphere, wound counter-clockwise seen from outside).

Both files hold the same float32 vertices: the binary file as float32, the
ASCII file as their exact values (17 significant digits), so that the two
read back to the same mesh bit for bit.  The binary header begins with
"solid", as many binary writers' do: a reader must take the file as binary
because its size matches its triangle count.

Used by tests/geometry/test_mesh.cpp and cases/geometry/*.toml.
Run: python3 cases/geometry/make_sphere_stl.py
"""
import math
import os
import struct

LEVEL = 2


def icosphere(level):
    p = (1 + math.sqrt(5)) / 2
    pts = [(-1, p, 0), (1, p, 0), (-1, -p, 0), (1, -p, 0), (0, -1, p), (0, 1, p),
           (0, -1, -p), (0, 1, -p), (p, 0, -1), (p, 0, 1), (-p, 0, -1), (-p, 0, 1)]
    tris = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4),
            (11, 10, 2), (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8),
            (3, 8, 9), (4, 9, 5), (2, 4, 11), (6, 2, 10), (8, 6, 7), (9, 8, 1)]

    def unit(v):
        n = math.sqrt(sum(x * x for x in v))
        return tuple(x / n for x in v)

    pts = [unit(q) for q in pts]
    for _ in range(level):
        mid = {}

        def midpoint(a, b):
            key = (min(a, b), max(a, b))
            if key not in mid:
                pts.append(unit(tuple((x + y) / 2 for x, y in zip(pts[a], pts[b]))))
                mid[key] = len(pts) - 1
            return mid[key]

        nxt = []
        for a, b, c in tris:
            ab, bc, ca = midpoint(a, b), midpoint(b, c), midpoint(c, a)
            nxt += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
        tris = nxt
    # float32 values, as Python floats
    f32 = [tuple(struct.unpack('<f', struct.pack('<f', x))[0] for x in q) for q in pts]
    return f32, tris


def normal(a, b, c):
    u = [b[i] - a[i] for i in range(3)]
    v = [c[i] - a[i] for i in range(3)]
    n = (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])
    s = math.sqrt(sum(x * x for x in n))
    return tuple(x / s for x in n)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    pts, tris = icosphere(LEVEL)
    header = b'solid kflow unit icosphere, level 2 (cases/geometry/make_sphere_stl.py)'
    out = bytearray(header.ljust(80, b' '))
    out += struct.pack('<I', len(tris))
    lines = ['solid unit_icosphere_level_2 (cases/geometry/make_sphere_stl.py)']
    for t in tris:
        a, b, c = (pts[i] for i in t)
        n = normal(a, b, c)
        out += struct.pack('<3f', *n)
        for v in (a, b, c):
            out += struct.pack('<3f', *v)
        out += struct.pack('<H', 0)
        lines.append(' facet normal %.7g %.7g %.7g' % n)
        lines.append('  outer loop')
        for v in (a, b, c):
            lines.append('   vertex %r %r %r' % v)
        lines.append('  endloop')
        lines.append(' endfacet')
    lines.append('endsolid unit_icosphere_level_2')
    with open(os.path.join(here, 'sphere-binary.stl'), 'wb') as f:
        f.write(out)
    with open(os.path.join(here, 'sphere-ascii.stl'), 'w') as f:
        f.write('\n'.join(lines) + '\n')


if __name__ == '__main__':
    main()
