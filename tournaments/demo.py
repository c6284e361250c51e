"""A generated federation for the demo site: coaches from many countries, ten-plus years of
sanctioned tournaments with majors, Swiss rounds, scores and awards.

generate_federation() is pure and deterministic: the same arguments give the same federation, drawn
from one random.Random(seed) as of a fixed day (SEEDED_ON), then moved by whole weeks to the seeding
day it is given, never the clock: the same seed and seeding day give the same federation, and a later
seeding day the same one later, weekdays kept. demo_federation_create() writes it as of the seeding
day (by default the clock's today); a second run with the same seed finds its events by source
("demo:<seed>:<n>") and adds nothing.
"""
from __future__ import annotations

import datetime as dt
import math
import random
import time
from dataclasses import dataclass, field, replace
from decimal import Decimal

from django.db import transaction
from django.utils import timezone

from tournaments import services
from tournaments.federation import RANKED_RACES, STUNTY_RACES
from tournaments.models import (
    Award,
    Coach,
    Event,
    EventStatus,
    Game,
    GameKind,
    GameSide,
    Participant,
    Race,
    Round,
    Side,
    Variant,
)
from tournaments.permissions import ORGANISERS, STAFF
from tournaments.services import game_sides_for

ANCHOR = dt.date(2025, 12, 31)  # the generator's last day: nothing it draws is dated after it
SEEDED_ON = ANCHOR + dt.timedelta(days=1)  # the seeding day the generator draws for; others move it by whole weeks
FIRST_YEAR = 2013
# which earlier event came in late (counted back from the one reported late now): one whose list shows an Rl-limitering
LATE_IN_HISTORY = 11
FIRST_NUMBER = 1_000_000  # above every FUMBBL coach id, so demo coaches never meet imported ones
CLASSIC, BLOOD_BOWL_2020, SEVENS = "Classic", "Blood Bowl 2020", "Sevens"
BLOOD_BOWL_2020_FROM = dt.date(2021, 1, 1)
SOURCE_PREFIX = "demo:"
NUMERALS = ("II", "III", "IV", "V", "VI")  # a second event of a name and year in one city
BATCH = 2000

# Country: coach weight, region, first names, surnames (separated by ", "). The weights follow a
# federation strongest in western Europe, with a large North American and Australian membership.
COUNTRIES: dict[str, tuple[float, str, list[str], list[str]]] = {
    code: (weight, region, first_names.split(", "), surnames.split(", "))
    for code, weight, region, first_names, surnames in [
        ("GB", 16, "EU",
            "James, Oliver, Thomas, Daniel, Matthew, Chris, Mark, Paul, Andrew, Simon, Gareth, "
            "Stuart, Emma, Sarah",
            "Smith, Jones, Taylor, Brown, Williams, Wilson, Johnson, Davies, Robinson, Wright, "
            "Thompson, Evans, Walker, Hughes, Clarke, Turner"),
        ("US", 12, "NA",
            "Michael, David, John, Brian, Kevin, Jason, Ryan, Eric, Justin, Tyler, Brandon, Josh, "
            "Jessica, Ashley",
            "Miller, Davis, Garcia, Rodriguez, Martinez, Anderson, Thomas, Jackson, White, Harris, "
            "Martin, Moore, Clark, Lewis"),
        ("DE", 9, "EU",
            "Stefan, Michael, Thomas, Andreas, Markus, Christian, Tobias, Jan, Sebastian, Florian, "
            "Matthias, Alexander, Julia, Katrin",
            "Müller, Schmidt, Schneider, Fischer, Weber, Meyer, Wagner, Becker, Schulz, Hoffmann, "
            "Koch, Richter, Klein, Wolf"),
        ("FR", 8, "EU",
            "Nicolas, Julien, Sébastien, Thomas, Guillaume, Romain, Maxime, Pierre, Antoine, Mathieu, "
            "Benoît, Olivier, Camille, Claire",
            "Martin, Bernard, Dubois, Robert, Richard, Petit, Durand, Leroy, Moreau, Simon, Laurent, "
            "Lefebvre, Michel, Garnier"),
        ("IT", 8, "EU",
            "Marco, Luca, Andrea, Alessandro, Matteo, Davide, Francesco, Simone, Federico, Stefano, "
            "Giuseppe, Lorenzo, Giulia, Chiara",
            "Rossi, Russo, Ferrari, Esposito, Bianchi, Romano, Colombo, Ricci, Marino, Greco, Bruno, "
            "Gallo, Conti, De Luca"),
        ("ES", 8, "EU",
            "Javier, Carlos, David, Daniel, Alejandro, Sergio, Pablo, Jorge, Álvaro, Raúl, Adrián, "
            "Rubén, Laura, Marta",
            "García, Fernández, González, Rodríguez, López, Martínez, Sánchez, Pérez, Gómez, Martín, "
            "Jiménez, Ruiz, Hernández, Díaz"),
        ("NL", 5, "EU",
            "Jeroen, Sander, Bas, Thijs, Ruben, Niels, Wouter, Joost, Maarten, Pieter, Bram, Martijn, "
            "Femke, Anouk",
            "de Jong, Jansen, de Vries, van den Berg, van Dijk, Bakker, Visser, Smit, Meijer, de "
            "Boer, Mulder, de Groot, Bos, Vos"),
        ("BE", 3, "EU",
            "Pieter, Wim, Koen, Tom, Jeroen, Stijn, Bart, Dries, Kevin, Maxime, Olivier, Gilles, "
            "Lotte, Sofie",
            "Peeters, Janssens, Maes, Jacobs, Mertens, Willems, Claes, Goossens, Wouters, De Smet, "
            "Dubois, Lambert, Dupont, Hermans"),
        ("DK", 4, "EU",
            "Mads, Rasmus, Jesper, Anders, Søren, Mikkel, Henrik, Morten, Jonas, Christian, Thomas, "
            "Lars, Mette, Camilla",
            "Nielsen, Jensen, Hansen, Pedersen, Andersen, Christensen, Larsen, Sørensen, Rasmussen, "
            "Jørgensen, Petersen, Madsen, Kristensen, Olsen"),
        ("SE", 4, "EU",
            "Erik, Johan, Anders, Per, Magnus, Fredrik, Oskar, Henrik, Daniel, Mattias, Niklas, "
            "Jonas, Anna, Sara",
            "Andersson, Johansson, Karlsson, Nilsson, Eriksson, Larsson, Olsson, Persson, Svensson, "
            "Gustafsson, Pettersson, Jonsson, Lindberg, Lindqvist"),
        ("NO", 2, "EU",
            "Ole, Lars, Kristian, Magnus, Eirik, Håkon, Sindre, Anders, Jon, Martin, Thomas, Espen, "
            "Ingrid, Silje",
            "Hansen, Johansen, Olsen, Larsen, Andersen, Pedersen, Nilsen, Kristiansen, Jensen, "
            "Karlsen, Berg, Haugen, Hagen, Bakken"),
        ("FI", 2, "EU",
            "Mikko, Juha, Jari, Antti, Timo, Janne, Ville, Teemu, Petri, Tuomas, Sami, Lauri, Laura, "
            "Anna",
            "Korhonen, Virtanen, Mäkinen, Nieminen, Mäkelä, Hämäläinen, Laine, Heikkinen, Koskinen, "
            "Järvinen, Lehtonen, Lehtinen, Saarinen, Salminen"),
        ("PL", 3, "EU",
            "Piotr, Krzysztof, Tomasz, Paweł, Michał, Marcin, Łukasz, Jakub, Adam, Kamil, Grzegorz, "
            "Mateusz",
            "Nowak, Kowalski, Wiśniewski, Wójcik, Kowalczyk, Kamiński, Lewandowski, Zieliński, "
            "Szymański, Woźniak, Dąbrowski, Kozłowski, Jankowski, Mazur"),
        ("CZ", 2, "EU",
            "Jan, Petr, Tomáš, Martin, Jakub, Lukáš, Ondřej, Pavel, Jiří, David, Michal, Filip",
            "Novák, Svoboda, Novotný, Dvořák, Černý, Procházka, Kučera, Veselý, Horák, Němec, Marek, "
            "Pospíšil"),
        ("AT", 2, "EU",
            "Lukas, Florian, Stefan, Markus, Thomas, Daniel, Philipp, Michael, Bernhard, Christoph, "
            "Martin, Andreas, Lisa, Sabine",
            "Gruber, Huber, Bauer, Wagner, Pichler, Steiner, Moser, Mayer, Hofer, Leitner, Berger, "
            "Fuchs, Eder, Fischer"),
        ("CH", 2, "EU",
            "Lukas, Simon, Reto, Marco, Daniel, Patrick, Nicolas, Fabian, Urs, Thomas, Christoph, "
            "Luca, Nadine, Sandra",
            "Müller, Meier, Schmid, Keller, Weber, Huber, Schneider, Meyer, Steiner, Fischer, Gerber, "
            "Brunner, Baumann, Favre"),
        ("IE", 2, "EU",
            "Conor, Sean, Ciarán, Patrick, Niall, Darragh, Eoin, Cathal, Brian, Declan, Aidan, Kevin, "
            "Aoife, Niamh",
            "Murphy, Kelly, O'Sullivan, Walsh, Smith, O'Brien, Byrne, Ryan, O'Connor, O'Neill, "
            "Reilly, Doyle, McCarthy, Gallagher"),
        ("PT", 1.5, "EU",
            "João, Pedro, Tiago, Rui, Ricardo, Nuno, Miguel, Bruno, André, Luís, Hugo, Diogo, Ana, "
            "Inês",
            "Silva, Santos, Ferreira, Pereira, Oliveira, Costa, Rodrigues, Martins, Sousa, Fernandes, "
            "Gonçalves, Gomes, Lopes, Marques"),
        ("GR", 2, "EU",
            "Giorgos, Dimitris, Nikos, Kostas, Giannis, Christos, Panagiotis, Vasilis, Thanasis, "
            "Michalis, Stavros, Alexandros",
            "Papadopoulos, Papadakis, Georgiou, Nikolaou, Pappas, Karagiannis, Vlachos, Oikonomou, "
            "Makris, Antoniou, Dimitriou, Ioannou"),
        ("HU", 1, "EU",
            "Bence, Dániel, Gábor, Péter, Zoltán, Tamás, Balázs, Ádám, Attila, László, Márton, "
            "Levente, Eszter, Anna",
            "Nagy, Kovács, Tóth, Szabó, Horváth, Varga, Kiss, Molnár, Németh, Farkas, Balogh, Papp, "
            "Takács, Juhász"),
        ("SI", 0.5, "EU",
            "Luka, Jan, Žiga, Matej, Nejc, Rok, Gašper, Miha, Jure, Blaž, Anže, Tadej",
            "Novak, Horvat, Kovačič, Krajnc, Zupančič, Potočnik, Kovač, Mlakar, Kos, Vidmar, Golob, "
            "Turk"),
        ("HR", 0.5, "EU",
            "Ivan, Marko, Luka, Josip, Ante, Tomislav, Mario, Petar, Matej, Nikola, Filip, Domagoj",
            "Horvat, Kovačević, Babić, Marić, Jurić, Novak, Kovačić, Knežević, Vuković, Marković, "
            "Petrović, Matić"),
        ("AU", 6, "OC",
            "Jack, Liam, Matt, Ben, Josh, Luke, Nathan, Sam, Mitchell, Daniel, Scott, Brendan, Chloe, "
            "Emily",
            "Smith, Jones, Williams, Brown, Wilson, Taylor, Johnson, White, Martin, Anderson, "
            "Thompson, Nguyen, Ryan, Kelly"),
        ("NZ", 1, "OC",
            "Liam, Jack, Ben, Hamish, Sam, Tom, James, Nikau, Blair, Callum, Matiu, Logan, Olivia, "
            "Aroha",
            "Smith, Wilson, Williams, Brown, Taylor, Anderson, Thompson, Walker, Ngata, Campbell, "
            "Stewart, Robertson, Parata, Tane"),
        ("CA", 3, "NA",
            "Liam, Noah, Ethan, Nathan, Alexandre, Mathieu, Ryan, Tyler, Connor, Justin, Marc, Kyle, "
            "Émilie, Megan",
            "Smith, Brown, Tremblay, Martin, Roy, Gagnon, Lee, Wilson, Johnson, MacDonald, Taylor, "
            "Campbell, Anderson, Côté"),
        ("MX", 1, "NA",
            "José, Luis, Juan, Carlos, Jorge, Alejandro, Miguel, Fernando, Ricardo, Eduardo, Diego, "
            "Arturo, María, Daniela",
            "Hernández, García, Martínez, López, González, Pérez, Rodríguez, Sánchez, Ramírez, Cruz, "
            "Flores, Gómez, Morales, Reyes"),
        ("BR", 1, "SA",
            "Lucas, Gabriel, Rafael, Felipe, Gustavo, Bruno, Thiago, Rodrigo, Leonardo, Mateus, "
            "Diego, Vinícius, Juliana, Camila",
            "Silva, Santos, Oliveira, Souza, Lima, Pereira, Ferreira, Costa, Rodrigues, Almeida, "
            "Nascimento, Carvalho, Araújo, Ribeiro"),
        ("JP", 1, "AS",
            "Hiroshi, Takashi, Kenji, Yuki, Daisuke, Shota, Kazuki, Ryota, Naoki, Takumi, Haruto, "
            "Sho, Yui, Aiko",
            "Sato, Suzuki, Takahashi, Tanaka, Watanabe, Ito, Yamamoto, Nakamura, Kobayashi, Kato, "
            "Yoshida, Yamada, Sasaki, Matsumoto"),
    ]
}


@dataclass(frozen=True)
class City:
    name: str
    country: str
    latitude: float
    longitude: float


CITIES = [City(*row) for row in [
    ("London", "GB", 51.5074, -0.1278), ("Manchester", "GB", 53.4808, -2.2426), ("Nottingham", "GB", 52.9548, -1.1581),
    ("Birmingham", "GB", 52.4862, -1.8904), ("Edinburgh", "GB", 55.9533, -3.1883), ("Bristol", "GB", 51.4545, -2.5879),
    ("Leeds", "GB", 53.8008, -1.5491),
    ("Chicago", "US", 41.8781, -87.6298), ("Dallas", "US", 32.7767, -96.7970), ("Seattle", "US", 47.6062, -122.3321),
    ("Philadelphia", "US", 39.9526, -75.1652), ("Atlanta", "US", 33.7490, -84.3880),
    ("Berlin", "DE", 52.5200, 13.4050), ("Bochum", "DE", 51.4818, 7.2162), ("Munich", "DE", 48.1351, 11.5820),
    ("Hamburg", "DE", 53.5511, 9.9937), ("Cologne", "DE", 50.9375, 6.9603),
    ("Paris", "FR", 48.8566, 2.3522), ("Lyon", "FR", 45.7640, 4.8357), ("Bordeaux", "FR", 44.8378, -0.5792),
    ("Lille", "FR", 50.6292, 3.0573),
    ("Rome", "IT", 41.9028, 12.4964), ("Milan", "IT", 45.4642, 9.1900), ("Bologna", "IT", 44.4949, 11.3426),
    ("Turin", "IT", 45.0703, 7.6869),
    ("Madrid", "ES", 40.4168, -3.7038), ("Barcelona", "ES", 41.3874, 2.1686), ("Valencia", "ES", 39.4699, -0.3763),
    ("Seville", "ES", 37.3891, -5.9845),
    ("Amsterdam", "NL", 52.3676, 4.9041), ("Rotterdam", "NL", 51.9244, 4.4777), ("Utrecht", "NL", 52.0907, 5.1214),
    ("Eindhoven", "NL", 51.4416, 5.4697),
    ("Brussels", "BE", 50.8503, 4.3517), ("Ghent", "BE", 51.0543, 3.7174), ("Antwerp", "BE", 51.2194, 4.4025),
    ("Copenhagen", "DK", 55.6761, 12.5683), ("Aarhus", "DK", 56.1629, 10.2039),
    ("Stockholm", "SE", 59.3293, 18.0686), ("Gothenburg", "SE", 57.7089, 11.9746), ("Malmö", "SE", 55.6050, 13.0038),
    ("Oslo", "NO", 59.9139, 10.7522), ("Bergen", "NO", 60.3913, 5.3221),
    ("Helsinki", "FI", 60.1699, 24.9384), ("Tampere", "FI", 61.4978, 23.7610),
    ("Warsaw", "PL", 52.2297, 21.0122), ("Kraków", "PL", 50.0647, 19.9450), ("Łódź", "PL", 51.7592, 19.4560),
    ("Prague", "CZ", 50.0755, 14.4378), ("Brno", "CZ", 49.1951, 16.6068),
    ("Vienna", "AT", 48.2082, 16.3738), ("Graz", "AT", 47.0707, 15.4395),
    ("Zürich", "CH", 47.3769, 8.5417), ("Geneva", "CH", 46.2044, 6.1432),
    ("Dublin", "IE", 53.3498, -6.2603), ("Cork", "IE", 51.8985, -8.4756),
    ("Lisbon", "PT", 38.7223, -9.1393), ("Porto", "PT", 41.1579, -8.6291),
    ("Athens", "GR", 37.9838, 23.7275), ("Thessaloniki", "GR", 40.6401, 22.9444),
    ("Budapest", "HU", 47.4979, 19.0402), ("Ljubljana", "SI", 46.0569, 14.5058), ("Zagreb", "HR", 45.8150, 15.9819),
    ("Sydney", "AU", -33.8688, 151.2093), ("Melbourne", "AU", -37.8136, 144.9631),
    ("Brisbane", "AU", -27.4698, 153.0251),
    ("Auckland", "NZ", -36.8485, 174.7633), ("Wellington", "NZ", -41.2865, 174.7762),
    ("Toronto", "CA", 43.6532, -79.3832), ("Vancouver", "CA", 49.2827, -123.1207),
    ("Montreal", "CA", 45.5017, -73.5673),
    ("Mexico City", "MX", 19.4326, -99.1332), ("São Paulo", "BR", -23.5505, -46.6333),
    ("Tokyo", "JP", 35.6762, 139.6503),
]]

# How often each race is brought to a tournament; the federation's favourites first, stunties rare.
RACE_POPULARITY = {
    "Human": 9, "Orc": 8, "Dwarf": 8, "Wood Elf": 8, "Chaos Dwarf": 7, "Lizardmen": 7, "Dark Elf": 7,
    "Skaven": 7, "Amazon": 6, "Shambling Undead": 6, "Norse": 5, "Necromantic Horror": 4, "Elf Union": 4,
    "High Elf": 4, "Underworld Denizens": 4, "Black Orc": 4, "Old World Alliance": 3, "Chaos Chosen": 3,
    "Chaos Renegade": 3, "Nurgle": 3, "Imperial Nobility": 3, "Khorne": 2, "Vampire": 2, "Tomb Kings": 2,
    "Slann": 2, "Halfling": 2, "Goblin": 2, "Ogre": 2, "Snotling": 1.5, "Gnome": 1,
}
NOT_IN_CLASSIC = {"Black Orc", "Gnome"}  # rosters that arrived with Blood Bowl 2020
# Team strength, added to the coach's skill; the rest of the races are 0.
RACE_STRENGTH = {
    "Dark Elf": 0.15, "Wood Elf": 0.15, "Lizardmen": 0.15, "Chaos Dwarf": 0.15, "Skaven": 0.1, "Amazon": 0.1,
    "Dwarf": 0.1, "Human": 0.05, "Orc": 0.1, "Shambling Undead": 0.1, "Necromantic Horror": 0.1, "Norse": 0.05,
    "Vampire": -0.2, "Tomb Kings": -0.1, "Slann": -0.05, "Khorne": -0.05, "Chaos Chosen": -0.1,
    "Halfling": -0.5, "Goblin": -0.45, "Ogre": -0.3, "Snotling": -0.5, "Gnome": -0.4,
}
BASHY = {
    "Chaos Dwarf", "Orc", "Black Orc", "Khorne", "Nurgle", "Chaos Chosen", "Dwarf", "Norse", "Ogre",
    "Underworld Denizens",
}
# Bashers cause more casualties, agile teams fewer (and suffer more).
AGILE = {"Dark Elf", "Wood Elf", "High Elf", "Elf Union", "Skaven", "Amazon", "Halfling", "Gnome", "Snotling", "Goblin"}

# Events per year relative to one another: growth to 2019, almost nothing in the pandemic, recovery.
YEAR_WEIGHTS = {
    2013: 10, 2014: 13, 2015: 16, 2016: 19, 2017: 22, 2018: 25, 2019: 28, 2020: 4,
    2021: 6, 2022: 22, 2023: 27, 2024: 30, 2025: 30,
}
PANDEMIC = (dt.date(2020, 3, 15), dt.date(2021, 6, 30))
EVENT_SUFFIXES = [
    "Open", "Bowl", "Cup", "Clash", "Masters", "Challenge", "Invitational", "Grand Prix", "Brawl", "Rumble",
]
ROUND_TIMES = [dt.time(9, 30), dt.time(12, 15), dt.time(15, 0), dt.time(17, 45), dt.time(20, 30)]
MAJOR_SHARE = 36 / 320  # the default schedule: 36 majors among 320 events
POINTS = {1.0: 3, 0.5: 1, 0.0: 0}  # the usual 3-1-0 tournament scoring
WINNER, RUNNER_UP, BEST_PAINTED, MOST_TOUCHDOWNS, MOST_CASUALTIES, STUNTY_CUP = (
    "Winner", "Runner-up", "Best Painted", "Most Touchdowns", "Most Casualties", "Stunty Cup",
)


@dataclass
class DemoCoach:
    number: int
    name: str
    nationality: str
    skill: float
    activity: float
    career: tuple[int, int]
    favourite_race: str
    birth_year: int | None = None
    member_since: dt.date | None = None
    member_until: dt.date | None = None


@dataclass
class DemoGame:
    home: int
    away: int | None  # None: a bye
    home_race: str
    away_race: str | None
    home_touchdowns: int = 0
    away_touchdowns: int = 0
    home_casualties: int = 0
    away_casualties: int = 0
    conceded_by: str | None = None


@dataclass
class DemoRound:
    number: int
    date: dt.date
    start_time: dt.time
    games: list[DemoGame]

    @property
    def played_at(self) -> dt.datetime:
        return dt.datetime.combine(self.date, self.start_time, tzinfo=dt.UTC)


@dataclass
class DemoEvent:
    source: str
    name: str
    variant: str
    start_date: dt.date
    end_date: dt.date
    city: City
    latitude: Decimal
    longitude: Decimal
    is_major: bool
    status: str = EventStatus.SANCTIONED
    # submitted when seeded, sanctioned only after the lists after it are published (reported late)
    reported_late: bool = False
    # results that came in late within the demo's history: reported on this day, after the lists after it
    reported_on: dt.date | None = None
    # a likely duplicate: the results of the event of this source, uploaded again (_upload_one_again)
    uploaded_again_from: str | None = None
    participants: dict[int, str] = field(default_factory=dict)  # coach number -> race
    rounds: list[DemoRound] = field(default_factory=list)
    awards: list[tuple[str, int]] = field(default_factory=list)  # (category, coach number)


@dataclass
class DemoFederation:
    seed: int
    coaches: list[DemoCoach]
    events: list[DemoEvent]


@dataclass
class _Slot:
    """An event before its games: when, where, how big."""

    name: str
    start_date: dt.date
    days: int
    rounds: int
    size: int
    city: City
    variant: str
    is_major: bool


def _weighted(rng: random.Random, weights: dict[str, float]) -> str:
    return rng.choices(list(weights), weights=list(weights.values()))[0]


def _poisson(rng: random.Random, mean: float) -> int:
    limit, count, product = math.exp(-mean), 0, rng.random()
    while product > limit and count < 9:
        count += 1
        product *= rng.random()
    return count


def _coaches(rng: random.Random, count: int) -> list[DemoCoach]:
    codes = list(COUNTRIES)
    weights = [COUNTRIES[code][0] for code in codes]
    taken: set[str] = set()
    coaches = []
    for i in range(count):
        # Every country first, so even a small federation is international.
        country = codes[i] if i < len(codes) else rng.choices(codes, weights=weights)[0]
        _, _, first_names, surnames = COUNTRIES[country]
        for _ in range(10):
            name = f"{rng.choice(first_names)} {rng.choice(surnames)}"
            if name not in taken:
                break
        else:
            name = f"{name.split(' ', 1)[0]} {rng.choice('ABCDEFGHJKLMNPRSTW')}. {name.split(' ', 1)[1]}"
        taken.add(name)
        # A third were already playing when the record starts; careers last about nine years.
        start = rng.randint(2004, FIRST_YEAR - 1) if rng.random() < 0.35 else rng.randint(FIRST_YEAR, ANCHOR.year)
        end = ANCHOR.year if rng.random() < 0.45 else min(ANCHOR.year, start + int(rng.expovariate(1 / 9)))
        coaches.append(
            DemoCoach(
                number=FIRST_NUMBER + i,
                name=name,
                nationality=country,
                skill=rng.gauss(0, 1),
                activity=min(rng.paretovariate(1.3), 25.0),
                career=(start, end),
                favourite_race=_weighted(rng, RACE_POPULARITY),
                birth_year=rng.randint(1962, min(2005, start - 14)) if rng.random() < 0.45 else None,
            )
        )
    return coaches


def _saturday(rng: random.Random, first: dt.date, last: dt.date) -> dt.date:
    day = first + dt.timedelta(days=rng.randint(0, (last - first).days))
    return day + dt.timedelta(days=(5 - day.weekday()) % 7)


def _majors() -> list[tuple[str, int, list[str], int, int, int, tuple[int, int]]]:
    """(name, year, host cities, month, days, rounds, size range) of every major in the record."""
    europe = ["Amsterdam", "Barcelona", "Bochum", "Bologna", "Brussels", "Copenhagen", "Lyon", "Madrid", "Malmö",
              "Paris", "Prague", "Rome", "Vienna", "Warsaw"]
    majors = []
    for year in range(FIRST_YEAR, ANCHOR.year + 1):
        if year in (2020, 2021):
            continue
        majors += [
            (f"Dungeonbowl {year}", year, ["Bochum", "Cologne", "Berlin", "Antwerp", "Eindhoven"], 4, 2, 6, (100, 160)),
            (f"Eurobowl {year}", year, europe, 5, 2, 6, (140, 200)),
            (f"NAF Championship {year}", year, ["Nottingham"], 10, 2, 6, (80, 150)),
        ]
    for year in (2015, 2019, 2023):
        hosts = ["Amsterdam", "Dallas", "Lyon", "Madrid", "Milan"]
        majors.append((f"NAF World Cup {year}", year, hosts, 11, 3, 8, (180, 200)))
    return majors


def _schedule(rng: random.Random, count: int) -> list[_Slot]:
    cities = {city.name: city for city in CITIES}
    majors = _majors()
    major_count = min(len(majors), round(count * MAJOR_SHARE) or (1 if count >= 4 else 0))
    chosen = sorted(rng.sample(range(len(majors)), major_count))
    slots = []
    for name, year, hosts, month, days, rounds, (low, high) in (majors[i] for i in chosen):
        start = _saturday(rng, dt.date(year, month, 1), dt.date(year, month, 21))
        variant = BLOOD_BOWL_2020 if start >= BLOOD_BOWL_2020_FROM else CLASSIC
        slots.append(_Slot(name, start, days, rounds, rng.randint(low, high), cities[rng.choice(hosts)], variant, True))

    codes = sorted({city.country for city in CITIES})
    host_weights = [COUNTRIES[code][0] for code in codes]
    years = list(YEAR_WEIGHTS)
    seen_names: set[str] = set()
    for _ in range(count - major_count):
        year = rng.choices(years, weights=list(YEAR_WEIGHTS.values()))[0]
        first, last = dt.date(year, 1, 1), min(dt.date(year, 12, 20), ANCHOR - dt.timedelta(days=7))
        if year == PANDEMIC[0].year:
            last = PANDEMIC[0] - dt.timedelta(days=7)
        if year == PANDEMIC[1].year:
            first = PANDEMIC[1]
        start = _saturday(rng, first, last)
        country = rng.choices(codes, weights=host_weights)[0]
        city = rng.choice([c for c in CITIES if c.country == country])
        variant = BLOOD_BOWL_2020 if start >= BLOOD_BOWL_2020_FROM else CLASSIC
        if rng.random() < 0.05:
            variant, days, rounds, size, suffix = SEVENS, 1, 5, rng.randint(8, 24), "Sevens"
        else:
            days = 1 if rng.random() < 0.65 else 2
            rounds = 5 if days == 1 else 6
            # Most events are small; a few local ones draw sixty.
            size, suffix = int(8 + rng.betavariate(1.3, 3.2) * 52), rng.choice(EVENT_SUFFIXES)
        name = f"{city.name} {suffix} {start.year}"
        for numeral in NUMERALS:
            if name not in seen_names:
                break
            name = f"{city.name} {suffix} {start.year} {numeral}"
        seen_names.add(name)
        slots.append(_Slot(name, start, days, rounds, size, city, variant, False))
    slots.sort(key=lambda slot: (slot.start_date, slot.name))
    return slots


def _attendees(rng: random.Random, slot: _Slot, coaches: list[DemoCoach]) -> list[DemoCoach]:
    """A weighted draw without replacement: active, keen coaches from nearby come most."""
    region = COUNTRIES[slot.city.country][1]
    near, far = (0.5, 0.25 if "World Cup" in slot.name else 0.06) if slot.is_major else (0.08, 0.003)
    keyed = []
    for coach in coaches:
        weight = coach.activity
        if coach.nationality != slot.city.country:
            weight *= near if COUNTRIES[coach.nationality][1] == region else far
        if not coach.career[0] <= slot.start_date.year <= coach.career[1]:
            weight *= 0.01
        # Efraimidis-Spirakis: the k largest u^(1/w) are a weighted sample without replacement.
        keyed.append((rng.random() ** (1.0 / weight), coach.number, coach))
    keyed.sort(key=lambda item: (item[0], item[1]), reverse=True)
    return [coach for _, _, coach in keyed[: min(slot.size, len(coaches))]]


def _race_for(rng: random.Random, coach: DemoCoach, variant: str) -> str:
    available = {
        race: weight for race, weight in RACE_POPULARITY.items() if variant != CLASSIC or race not in NOT_IN_CLASSIC
    }
    if coach.favourite_race in available and rng.random() < 0.6:
        return coach.favourite_race
    return _weighted(rng, available)


def _hits(race: str, opponent_race: str) -> float:
    """Mean casualties a team causes: bashers more, agile teams fewer, and agile victims break easily."""
    hits = 1.4 if race in BASHY else 0.7 if race in AGILE else 1.0
    return hits * (1.2 if opponent_race in AGILE else 1.0)


def _play(rng: random.Random, game: DemoGame, skill: dict[int, float], variant: str) -> None:
    home_strength = skill[game.home] + RACE_STRENGTH.get(game.home_race, 0)
    edge = home_strength - (skill[game.away] + RACE_STRENGTH.get(game.away_race, 0))
    mean = 1.0 if variant == SEVENS else 1.25
    game.home_touchdowns = _poisson(rng, mean * math.exp(0.3 * edge))
    game.away_touchdowns = _poisson(rng, mean * math.exp(-0.3 * edge))
    game.home_casualties = _poisson(rng, _hits(game.home_race, game.away_race) * math.exp(0.1 * edge))
    game.away_casualties = _poisson(rng, _hits(game.away_race, game.home_race) * math.exp(-0.1 * edge))
    margin = game.home_touchdowns - game.away_touchdowns
    if abs(margin) >= 2 and rng.random() < 0.04:
        game.conceded_by = Side.AWAY if margin > 0 else Side.HOME


def _home_score(game: DemoGame) -> float:
    if game.home_touchdowns == game.away_touchdowns:
        return 0.5
    return 1.0 if game.home_touchdowns > game.away_touchdowns else 0.0


def _pairings(order: list[int], met: dict[int, set[int]], budget: int = 20_000) -> list[tuple[int, int]]:
    """Pairs down the standings, each coach with the highest-placed one he has not met, backtracking
    when the rest cannot be paired; a rematch only when the search finds no way round it."""
    steps = 0

    def pair(pool: list[int]) -> list[tuple[int, int]] | None:
        nonlocal steps
        if not pool:
            return []
        first, rest = pool[0], pool[1:]
        for i, other in enumerate(rest):
            steps += 1
            if other in met[first] or steps > budget:
                continue
            tail = pair(rest[:i] + rest[i + 1:])
            if tail is not None:
                return [(first, other), *tail]
        return None

    found = pair(order)
    if found is not None:
        return found
    pool, pairs = list(order), []
    while pool:
        first = pool.pop(0)
        other = next((n for n in pool if n not in met[first]), pool[0])
        pool.remove(other)
        pairs.append((first, other))
    return pairs


def _swiss(rng: random.Random, slot: _Slot, players: list[DemoCoach], races: dict[int, str]) -> list[DemoRound]:
    """Swiss rounds: round one drawn at random, then by points (no rematch where one can be avoided);
    the lowest-placed coach who has not had one sits out an odd round with a bye."""
    skill = {coach.number: coach.skill for coach in players}
    points = {coach.number: 0 for coach in players}
    margin = {coach.number: 0 for coach in players}
    met: dict[int, set[int]] = {coach.number: set() for coach in players}
    had_bye: set[int] = set()
    tiebreak = {coach.number: rng.random() for coach in players}
    per_day = math.ceil(slot.rounds / slot.days)
    order = [coach.number for coach in players]
    rng.shuffle(order)
    rounds = []
    for index in range(slot.rounds):
        if index:
            order.sort(key=lambda n: (-points[n], -margin[n], tiebreak[n]))
        pool = list(order)
        games = []
        bye = None
        if len(pool) % 2:
            bye = next((n for n in reversed(pool) if n not in had_bye), pool[-1])
            pool.remove(bye)
            had_bye.add(bye)
            points[bye] += POINTS[1.0]
        for home, away in _pairings(pool, met):
            if rng.random() < 0.5:
                home, away = away, home
            game = DemoGame(home=home, away=away, home_race=races[home], away_race=races[away])
            _play(rng, game, skill, slot.variant)
            met[home].add(away)
            met[away].add(home)
            points[home] += POINTS[_home_score(game)]
            points[away] += POINTS[1.0 - _home_score(game)]
            margin[home] += game.home_touchdowns - game.away_touchdowns
            margin[away] += game.away_touchdowns - game.home_touchdowns
            games.append(game)
        if bye is not None:
            games.append(DemoGame(home=bye, away=None, home_race=races[bye], away_race=None))
        day, slot_in_day = divmod(index, per_day)
        rounds.append(DemoRound(index + 1, slot.start_date + dt.timedelta(days=day), ROUND_TIMES[slot_in_day], games))
    return rounds


def _awards(rng: random.Random, event: DemoEvent) -> list[tuple[str, int]]:
    """(category, coach number) by the final standings: points, then touchdown margin, then casualties."""
    points = {n: 0 for n in event.participants}
    margin = {n: 0 for n in event.participants}
    touchdowns = {n: 0 for n in event.participants}
    casualties = {n: 0 for n in event.participants}
    for round_ in event.rounds:
        for game in round_.games:
            if game.away is None:
                points[game.home] += POINTS[1.0]
                continue
            home_score = _home_score(game)
            for coach, score, scored, conceded, hurt in (
                (game.home, home_score, game.home_touchdowns, game.away_touchdowns, game.home_casualties),
                (game.away, 1.0 - home_score, game.away_touchdowns, game.home_touchdowns, game.away_casualties),
            ):
                points[coach] += POINTS[score]
                margin[coach] += scored - conceded
                touchdowns[coach] += scored
                casualties[coach] += hurt
    standings = sorted(event.participants, key=lambda n: (-points[n], -margin[n], -casualties[n], n))
    awards = [(WINNER, standings[0])]
    if len(standings) > 1:
        awards.append((RUNNER_UP, standings[1]))
    awards.append((BEST_PAINTED, rng.choice(sorted(event.participants))))
    awards.append((MOST_TOUCHDOWNS, min(standings, key=lambda n: (-touchdowns[n], standings.index(n)))))
    awards.append((MOST_CASUALTIES, min(standings, key=lambda n: (-casualties[n], standings.index(n)))))
    stunties = [n for n in standings if event.participants[n] in STUNTY_RACES]
    if stunties:
        awards.append((STUNTY_CUP, stunties[0]))
    return awards


def generate_federation(
    *, seed: int = 1, coaches: int = 2000, events: int = 320, today: dt.date = SEEDED_ON
) -> DemoFederation:
    """The demo federation for a seed as of the seeding day `today`, in memory: drawn as of SEEDED_ON,
    then moved by seeding_shift(today). Deterministic: no clock, no global random."""
    if coaches < 2 or events < 1:
        raise ValueError("a federation needs at least 2 coaches and 1 event")
    rng = random.Random(seed)
    members = _coaches(rng, coaches)
    generated = []
    for n, slot in enumerate(_schedule(rng, events)):
        players = _attendees(rng, slot, members)
        event = DemoEvent(
            source=f"{SOURCE_PREFIX}{seed}:{n}",
            name=slot.name,
            variant=slot.variant,
            start_date=slot.start_date,
            end_date=slot.start_date + dt.timedelta(days=slot.days - 1),
            city=slot.city,
            # The venue: somewhere in the city.
            latitude=Decimal(f"{slot.city.latitude + rng.uniform(-0.03, 0.03):.5f}"),
            longitude=Decimal(f"{slot.city.longitude + rng.uniform(-0.03, 0.03):.5f}"),
            is_major=slot.is_major,
            participants={coach.number: _race_for(rng, coach, slot.variant) for coach in players},
        )
        event.rounds = _swiss(rng, slot, players, event.participants)
        event.awards = _awards(rng, event)
        generated.append(event)
    _leave_some_unsanctioned(rng, generated)
    _memberships(rng, members, generated)
    _upload_one_again(generated)
    return _moved(DemoFederation(seed, members, generated), by=seeding_shift(today))


def seeding_shift(today: dt.date) -> dt.timedelta:
    """How far the generated federation moves for the seeding day `today`: the most whole weeks that
    keep its last day (ANCHOR) before `today`, so that Saturdays stay Saturdays (none for SEEDED_ON)."""
    return dt.timedelta(weeks=(today - SEEDED_ON).days // 7)


def _moved(federation: DemoFederation, *, by: dt.timedelta) -> DemoFederation:
    """The same federation with every date `by` later: events, rounds, reports, memberships; names
    take the year of their new start, and birth years and careers the whole years moved (ages stay)."""
    if not by:
        return federation
    years = round(by.days / 365.2425)
    coaches = [
        replace(
            coach,
            career=(coach.career[0] + years, coach.career[1] + years),
            birth_year=coach.birth_year + years if coach.birth_year is not None else None,
            member_since=coach.member_since + by if coach.member_since else None,
            member_until=coach.member_until + by if coach.member_until else None,
        )
        for coach in federation.coaches
    ]
    events = [
        replace(
            event,
            name=name,
            start_date=event.start_date + by,
            end_date=event.end_date + by,
            reported_on=event.reported_on + by if event.reported_on else None,
            rounds=[replace(round_, date=round_.date + by) for round_ in event.rounds],
        )
        for event, name in zip(federation.events, _names_moved(federation.events, by=by), strict=True)
    ]
    return DemoFederation(federation.seed, coaches, events)


def _names_moved(events: list[DemoEvent], *, by: dt.timedelta) -> list[str]:
    """Each event's name with the year of its moved start ("Ghent Bowl 2025" in December moved into
    2026 is "Ghent Bowl 2026"); one that now meets an earlier event's name takes the next free numeral."""
    taken: set[str] = set()
    names = []
    for event in events:
        year = f" {(event.start_date + by).year}"
        name = event.name.replace(f" {event.start_date.year}", year, 1)
        if name in taken and year in name:
            stem = name[: name.index(year) + len(year)]
            name = next((f"{stem} {numeral}" for numeral in NUMERALS if f"{stem} {numeral}" not in taken), name)
        taken.add(name)
        names.append(name)
    return names


def _leave_some_unsanctioned(rng: random.Random, events: list[DemoEvent]) -> None:
    """Three of the latest events still wait for the staff (submitted, one still a draft; one submitted
    is then made a likely duplicate by _upload_one_again); a few were rejected. The very latest is
    sanctioned, so that the last full month has rated games whatever the seeding day: its list and the
    current ranking show changes."""
    if len(events) < 10:
        events[-2 if len(events) > 1 else -1].status = EventStatus.SUBMITTED
        return
    events[-2].status = EventStatus.DRAFT
    events[-3].status = events[-4].status = EventStatus.SUBMITTED
    minors = [event for event in events[:-4] if not event.is_major]
    for event in rng.sample(minors, min(3, len(minors))):
        event.status = EventStatus.REJECTED
    # One event months back is reported late: `seed_demo --report-late` sanctions it once the lists
    # after it are published, so that they show revised figures and why (no draw of rng: the rest stays).
    late = [event for event in events[:-12] if not event.is_major and event.status == EventStatus.SANCTIONED]
    if late:
        late[-1].status, late[-1].reported_late = EventStatus.SUBMITTED, True
    # Another came in late months ago: the KNSB list after its report rated it, with the ratings of the
    # lists in force when it was played (its breakdowns show both dates, and an Rl-limitering).
    if len(late) > LATE_IN_HISTORY:
        earlier = late[-1 - LATE_IN_HISTORY]
        earlier.reported_on = (earlier.end_date.replace(day=1) + dt.timedelta(days=62)).replace(day=10)


def _upload_one_again(events: list[DemoEvent]) -> None:
    """One of the submitted events is a likely duplicate: its organiser uploaded the NAF report of the
    latest sanctioned minor event into a new event of its name with a numeral (the same games, the same
    weekend), so that the staff review warns and asks for a reason. No draw of rng: the rest stays."""
    if len(events) < 10:
        return
    originals = [e for e in events[:-4] if e.status == EventStatus.SANCTIONED and not e.is_major and e.reported_on is None]
    if not originals:
        return
    original, waiting = originals[-1], events[-3]
    taken = {event.name for event in events}
    events[-3] = replace(
        original, source=waiting.source, status=waiting.status, uploaded_again_from=original.source,
        name=next(f"{original.name} {numeral}" for numeral in NUMERALS if f"{original.name} {numeral}" not in taken),
        participants=dict(original.participants), awards=list(original.awards),
        rounds=[replace(r, games=[replace(g) for g in r.games]) for r in original.rounds],
    )


def _memberships(rng: random.Random, coaches: list[DemoCoach], events: list[DemoEvent]) -> None:
    """Members joined before their first event; some who stopped playing let membership lapse."""
    first: dict[int, dt.date] = {}
    last: dict[int, dt.date] = {}
    for event in events:
        for number in event.participants:
            first.setdefault(number, event.start_date)
            last[number] = event.end_date
    for coach in coaches:
        some_day_in_first_year = dt.date(coach.career[0], 1, 1) + dt.timedelta(days=rng.randint(0, 364))
        joined = first.get(coach.number, some_day_in_first_year)
        coach.member_since = min(joined, ANCHOR) - dt.timedelta(days=rng.randint(0, 500))
        stopped = last.get(coach.number)
        if stopped and stopped.year <= ANCHOR.year - 4 and rng.random() < 0.6:
            coach.member_until = stopped + dt.timedelta(days=rng.randint(30, 365))


@dataclass
class DemoReport:
    coaches_created: int = 0
    events_created: int = 0
    events_present: int = 0
    participants_created: int = 0
    rounds_created: int = 0
    games_created: int = 0
    awards_created: int = 0
    seconds: float = 0.0
    seeding_day: dt.date = SEEDED_ON
    weeks_moved: int = 0


def demo_late_reports_sanction(*, seed: int = 1, coaches: int = 2000, events: int = 320) -> list[Event]:
    """Sanction the demo's events reported late that still wait (`seed_demo --report-late`): run it
    after a recalculation has published the lists after them. Returns the events sanctioned, reported
    on the day it runs (the clock's, as the publications are: an earlier seeding day would put the
    report before the lists it follows). Their sources are the same whatever the seeding day."""
    sources = [e.source for e in generate_federation(seed=seed, coaches=coaches, events=events).events if e.reported_late]
    waiting = list(Event.objects.filter(source__in=sources, status=EventStatus.SUBMITTED))
    for event in waiting:
        services.event_sanction(event=event, actor=None, note="Reported late: its results came in after the lists that follow it.")
    return waiting


@transaction.atomic
def demo_federation_create(
    *, seed: int = 1, coaches: int = 2000, events: int = 320, today: dt.date | None = None
) -> DemoReport:
    """Write the demo federation for a seed as of the seeding day `today` (default the clock's): every
    date before it. Its events already in the database are left alone, whatever day they were seeded
    for; coaches whose number is taken are reused as they are."""
    started = time.perf_counter()
    today = today or timezone.localdate()
    federation = generate_federation(seed=seed, coaches=coaches, events=events, today=today)
    report = DemoReport(seeding_day=today, weeks_moved=seeding_shift(today).days // 7)
    present = set(Event.objects.filter(source__startswith=f"{SOURCE_PREFIX}{seed}:").values_list("source", flat=True))
    todo = [event for event in federation.events if event.source not in present]
    report.events_present = len(federation.events) - len(todo)

    race_ids = dict(Race.objects.filter(name__in=RANKED_RACES).values_list("name", "id"))
    variant_ids = dict(Variant.objects.values_list("name", "id"))
    coach_ids = dict(
        Coach.objects.filter(number__gte=FIRST_NUMBER, number__lt=FIRST_NUMBER + coaches).values_list("number", "id")
    )
    created = Coach.objects.bulk_create(
        [
            Coach(
                number=c.number, name=c.name, nationality=c.nationality, member_since=c.member_since,
                member_until=c.member_until, birth_year=c.birth_year,
            )
            for c in federation.coaches
            if c.number not in coach_ids
        ],
        batch_size=BATCH,
    )
    coach_ids.update((coach.number, coach.pk) for coach in created)
    report.coaches_created = len(created)

    rows = Event.objects.bulk_create(
        [
            Event(
                name=e.name, variant_id=variant_ids[e.variant], start_date=e.start_date, end_date=e.end_date,
                country=e.city.country, city=e.city.name, latitude=e.latitude, longitude=e.longitude,
                is_major=e.is_major, status=e.status, source=e.source,
            )
            for e in todo
        ]
    )
    report.events_created = len(rows)
    participants, rounds, awards = [], [], []
    for event, row in zip(todo, rows):
        participants += [
            Participant(event_id=row.pk, coach_id=coach_ids[number], race_id=race_ids[race])
            for number, race in event.participants.items()
        ]
        rounds += [Round(event_id=row.pk, number=r.number, date=r.date, start_time=r.start_time) for r in event.rounds]
        awards += [
            Award(
                event_id=row.pk, category=category, coach_id=coach_ids[number],
                race_id=race_ids[event.participants[number]],
            )
            for category, number in event.awards
        ]
    Participant.objects.bulk_create(participants, batch_size=BATCH)
    Round.objects.bulk_create(rounds, batch_size=BATCH)
    Award.objects.bulk_create(awards, batch_size=BATCH)
    report.participants_created = len(participants)
    report.rounds_created = len(rounds)
    report.awards_created = len(awards)

    round_rows = iter(rounds)
    games = []
    for event, row in zip(todo, rows):
        for demo_round in event.rounds:
            round_row = next(round_rows)
            for table, g in enumerate(demo_round.games, start=1):
                games.append(
                    Game(
                        round_id=round_row.pk,
                        event_id=row.pk,
                        home_coach_id=coach_ids[g.home],
                        home_race_id=race_ids[g.home_race],
                        away_coach_id=coach_ids[g.away] if g.away is not None else None,
                        away_race_id=race_ids[g.away_race] if g.away_race else None,
                        home_touchdowns=g.home_touchdowns,
                        away_touchdowns=g.away_touchdowns,
                        home_casualties=g.home_casualties,
                        away_casualties=g.away_casualties,
                        conceded_by=g.conceded_by,
                        kind=GameKind.BYE if g.away is None else GameKind.PLAYED,
                        played_at=demo_round.played_at,
                        source=f"{event.source}:{demo_round.number}:{table}",
                        reported_on=event.reported_on or Game.reported_in_bulk(row),
                    )
                )
    for start in range(0, len(games), BATCH):
        batch = Game.objects.bulk_create(games[start:start + BATCH])
        GameSide.objects.bulk_create([side for game in batch for side in game_sides_for(game)])
    report.games_created = len(games)
    report.seconds = time.perf_counter() - started
    return report


# The demo's logins: a published password, so only on a developer's site (DEBUG on).
DEMO_PASSWORD = "blood-bowl-demo"
DEMO_LOGINS = (("demo-staff", STAFF), ("demo-organiser", ORGANISERS))


def demo_logins_create() -> list[tuple[str, str, str]]:
    """Create (or reset) a staff and an organiser login, the organiser owning the demo's events
    that wait for the staff (draft, submitted): returns (username, password, role) for each."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    from .permissions import groups_sync

    if not settings.DEBUG:
        raise ValueError("The demo logins have a published password: they are made only on a developer's site (DEBUG on).")
    groups_sync()
    User = get_user_model()
    made = []
    for username, role in DEMO_LOGINS:
        user, _ = User.objects.get_or_create(username=username, defaults={"email": f"{username}@example.org"})
        user.set_password(DEMO_PASSWORD)
        user.is_staff = role == STAFF
        user.save()
        user.groups.set([Group.objects.get(name=role)])
        made.append((username, DEMO_PASSWORD, role))
    organiser = User.objects.get(username=DEMO_LOGINS[1][0])
    waiting = [EventStatus.DRAFT, EventStatus.SUBMITTED, EventStatus.REJECTED]
    Event.objects.filter(source__startswith=SOURCE_PREFIX, status__in=waiting, organiser=None).update(organiser=organiser)
    return made
