"""The federation's fixed lists: the 30 ranked races and the variants it sanctions."""

RANKED_RACES = [
    "Amazon", "Black Orc", "Chaos Chosen", "Chaos Dwarf", "Chaos Renegade", "Dark Elf", "Dwarf",
    "Elf Union", "Gnome", "Goblin", "Halfling", "High Elf", "Human", "Imperial Nobility", "Khorne",
    "Lizardmen", "Necromantic Horror", "Norse", "Nurgle", "Ogre", "Old World Alliance", "Orc",
    "Shambling Undead", "Skaven", "Slann", "Snotling", "Tomb Kings", "Underworld Denizens", "Vampire",
    "Wood Elf",
]
STUNTY_RACES = {"Gnome", "Goblin", "Halfling", "Ogre", "Snotling"}

VARIANTS = ["Classic", "Blood Bowl 2020", "Sevens", "Dungeon Bowl"]
