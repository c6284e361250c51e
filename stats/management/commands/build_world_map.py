"""Write the vendored world map and the country centres from Natural Earth's 110m countries.

    manage.py build_world_map path/to/naturalearth_lowres.shp

The shapefile (with its .dbf beside it) is Natural Earth's public-domain "Admin 0 – Countries" at
1:110m, as shipped in the geopandas 0.14 wheel (geopandas/datasets/naturalearth_lowres). Writes
static/vendor/world-110m.svg (equirectangular: x = longitude, y = −latitude) and stats/geo.py.
"""
import struct
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django_countries import countries

POLYGON = 5
STEP = 0.1  # degrees kept in the outline: finer than a pixel at the map's width
# Countries too small for the 1:110m outline where events are held; centres from their capitals.
SMALL_COUNTRIES = {
    "AD": (42.51, 1.52), "BH": (26.07, 50.55), "GI": (36.14, -5.35), "HK": (22.32, 114.17), "LI": (47.14, 9.52),
    "MC": (43.74, 7.42), "MT": (35.90, 14.51), "SG": (1.35, 103.82), "SM": (43.94, 12.46),
}


def read_polygons(shp: Path) -> list[list[list[tuple[float, float]]]]:
    """Every record of a polygon shapefile as a list of rings of (longitude, latitude)."""
    data = shp.read_bytes()
    records, offset = [], 100
    while offset < len(data):
        _, words = struct.unpack(">ii", data[offset:offset + 8])
        content = data[offset + 8:offset + 8 + 2 * words]
        offset += 8 + 2 * words
        (shape_type,) = struct.unpack("<i", content[:4])
        if shape_type != POLYGON:
            records.append([])
            continue
        parts_count, points_count = struct.unpack("<ii", content[36:44])
        parts = list(struct.unpack(f"<{parts_count}i", content[44:44 + 4 * parts_count]))
        start = 44 + 4 * parts_count
        points = [struct.unpack("<2d", content[start + 16 * i:start + 16 * i + 16]) for i in range(points_count)]
        bounds = parts + [points_count]
        records.append([points[bounds[i]:bounds[i + 1]] for i in range(parts_count)])
    return records


def read_table(dbf: Path) -> list[dict[str, str]]:
    """The attribute rows of a dBase file, as text."""
    data = dbf.read_bytes()
    count, header_size, record_size = struct.unpack("<IHH", data[4:12])
    names, widths, position = [], [], 32
    while data[position] != 0x0D:
        names.append(data[position:position + 11].split(b"\0")[0].decode("ascii").lower())
        widths.append(data[position + 16])
        position += 32
    rows = []
    for index in range(count):
        record = data[header_size + index * record_size:header_size + (index + 1) * record_size]
        row, cursor = {}, 1
        for name, width in zip(names, widths):
            row[name] = record[cursor:cursor + width].decode("utf-8", "replace").strip()
            cursor += width
        rows.append(row)
    return rows


def ring_area_and_centre(ring) -> tuple[float, tuple[float, float]]:
    area = cx = cy = 0.0
    for (x0, y0), (x1, y1) in zip(ring, ring[1:] + ring[:1]):
        cross = x0 * y1 - x1 * y0
        area += cross
        cx += (x0 + x1) * cross
        cy += (y0 + y1) * cross
    if not area:
        return 0.0, ring[0]
    return abs(area) / 2, (cx / (3 * area), cy / (3 * area))


def ring_path(ring) -> str:
    points = []
    for x, y in ring:
        point = (round(x / STEP) * STEP, round(-y / STEP) * STEP)
        if not points or point != points[-1]:
            points.append(point)
    if len(points) < 3:
        return ""
    return "M" + " ".join(f"{_number(x)} {_number(y)}" for x, y in points) + "Z"


def _number(value: float) -> str:
    text = f"{value:.1f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


class Command(BaseCommand):
    help = "Write static/vendor/world-110m.svg and stats/geo.py from Natural Earth's 110m countries shapefile."

    def add_arguments(self, parser):
        parser.add_argument("shapefile", type=Path)

    def handle(self, *args, shapefile: Path, **options):
        if not shapefile.exists() or not shapefile.with_suffix(".dbf").exists():
            raise CommandError(f"{shapefile} and its .dbf are needed")
        shapes = read_polygons(shapefile)
        table = read_table(shapefile.with_suffix(".dbf"))
        paths, centres = [], dict(SMALL_COUNTRIES)
        for rings, row in zip(shapes, table):
            code = countries.alpha2(row.get("iso_a3", "")) or ""
            d = "".join(ring_path(ring) for ring in rings)
            if d:
                paths.append(f'<path id="{code or row["iso_a3"]}" d="{d}"/>')
            if code and rings:
                _, (lon, lat) = max(ring_area_and_centre(ring) for ring in rings)
                centres[code] = (round(lat, 2), round(lon, 2))
        graticule = "".join(f"M{x} -90V90" for x in range(-150, 180, 30)) + "".join(f"M-180 {y}H180" for y in range(-60, 90, 30))
        svg = (
            '<svg xmlns="http://www.w3.org/2000/svg" viewBox="-180 -90 360 180" width="1440" height="720">'
            "<title>World, Natural Earth 1:110m countries (public domain), equirectangular</title>"
            '<rect x="-180" y="-90" width="360" height="180" fill="#eef3f8"/>'
            f'<path d="{graticule}" fill="none" stroke="#d5dde8" stroke-width="0.2"/>'
            '<g fill="#dfe4ea" stroke="#9aa6b5" stroke-width="0.15" stroke-linejoin="round">'
            + "".join(paths) + "</g></svg>\n"
        )
        target = Path(settings.BASE_DIR) / "static" / "vendor" / "world-110m.svg"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(svg)
        lines = [
            '"""Centres of countries (latitude, longitude) for events without coordinates.',
            "",
            "Written by `manage.py build_world_map` from Natural Earth's 1:110m countries (public domain): the",
            "centroid of each country's largest polygon; a few small countries from their capitals.",
            '"""',
            "COUNTRY_POINTS = {",
            *(f'    "{code}": ({lat}, {lon}),' for code, (lat, lon) in sorted(centres.items())),
            "}",
            "",
        ]
        (Path(settings.BASE_DIR) / "stats" / "geo.py").write_text("\n".join(lines))
        self.stdout.write(f"{len(paths)} countries drawn ({target.stat().st_size:,} bytes), {len(centres)} centres.")
