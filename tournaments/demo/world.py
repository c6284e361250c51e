"""What the demo federation is drawn from: its countries and cities, races and their popularity,
the years and their weights, and the names and numbers it gives."""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

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
