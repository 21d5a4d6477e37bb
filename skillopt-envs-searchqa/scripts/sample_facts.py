"""Hand-written fact tables of a small fictional world, the raw material of the bundled
SearchQA sample (CC0-1.0; written for this project, no real clues or snippets).

Every entity is invented, so a model can only answer from the snippets it is given,
never from memory, and no fact can leak from a trained skill into a test item.
"""

from __future__ import annotations

GIVEN_NAMES = (
    "Ada", "Tomas", "Lena", "Oskar", "Mira", "Elias", "Ines", "Bruno", "Clara", "Dmitri",
    "Edda", "Felix", "Greta", "Hugo", "Ilse", "Jonas", "Kira", "Lorenz", "Maren", "Nils",
    "Olga", "Pavel", "Rosa", "Stefan", "Thea", "Ulrich", "Vera", "Wendel", "Yara", "Zeno",
    "Agnes", "Basil", "Cora", "Dorian", "Elsa", "Frida", "Gideon", "Hedda", "Ivo", "Juna",
)

SURNAMES = (
    "Quillane", "Brask", "Thornwell", "Marrow", "Fenwick", "Hollis", "Kestrel", "Ardent", "Vantry",
    "Mallory", "Corbin", "Dunmore", "Esker", "Falke", "Garrow", "Haverty", "Ingle", "Jessop",
    "Kell", "Lockhart", "Morrow", "Nettle", "Orrin", "Pell", "Quarry", "Rusk", "Selwyn",
    "Tarrant", "Umber", "Voss", "Wynn", "Yarrow", "Zell", "Ashby", "Brill", "Cask", "Dray",
    "Ember", "Frost", "Gale", "Harker", "Ives", "Juniper", "Lark", "Moss", "Noble", "Oakes",
)

# Honorifics that make a name non-canonical when they are the only form in the snippets.
TITLES = ("Dr.", "Prof.", "Capt.", "Sir", "Dame", "Rev.")

TOWN_HEADS = ("Vel", "Kess", "Arn", "Bram", "Cor", "Dun", "Esk", "Fal", "Gar", "Hol", "Ith", "Lorn",
              "Mar", "Nor", "Orm", "Pen", "Quar", "Ross", "Sel", "Tarn", "Ulm", "Wend", "Yell", "Brin")
TOWN_TAILS = ("mora", "ford", "wick", "haven", "stead", "mouth", "by", "dale", "holm", "crest", "port", "minster")

# Towns whose canonical name starts with a word that snippets often abbreviate.
PREFIXED_TOWNS = (
    ("Saint", "St.", "Aubel"), ("Saint", "St.", "Corwen"), ("Saint", "St.", "Ivel"), ("Saint", "St.", "Maddern"),
    ("Saint", "St.", "Piran Cross"), ("Saint", "St.", "Wenna"), ("Fort", "Ft.", "Calder"), ("Fort", "Ft.", "Harrow"),
    ("Fort", "Ft.", "Lisle"), ("Fort", "Ft.", "Tennick"), ("Port", "Pt.", "Ellery"), ("Port", "Pt.", "Quenby"),
)

MOUNTAINS = ("Ossary", "Brennock", "Tavish", "Greyfell", "Ulmer", "Cairnach", "Vesk", "Hollin", "Skarra",
             "Drummel", "Feyne", "Koruna", "Lathe", "Morvane", "Penhallow", "Raske")

REGIONS = ("the Ashen Coast", "the Marrow Hills", "the Veld Lowlands", "the Northern Fens", "the Tarrow Valley",
           "the Salt Marshes", "the Iron Downs", "the Lantern Isles", "the Brackwater Delta", "the High Moors")

RANGES = ("Tarrow Range", "Hollin Ridges", "Grey Spine", "Kessel Heights", "Umber Crags", "Wend Massif")

STRUCTURES = ("lighthouse", "stone bridge", "clock tower", "canal lock", "observatory", "sea wall",
              "railway viaduct", "tide mill", "covered market", "harbour crane")

ENGINEER_JOBS = ("engineer", "architect", "master mason", "surveyor", "shipwright")

FESTIVALS = ("Lantern Regatta", "Salt Fair", "Kite Festival", "Herring Feast", "Bell Night", "Apple Moot",
             "Ember Parade", "Tide Games", "Barley Wake", "Frost Market", "Reed Dance", "Heron Fair")

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December")

BOOKS = (
    ("The Salt Orchard", "a family of pear growers on a flooded coast"),
    ("Winter at the Weir", "a miller's daughter who keeps a frozen river moving"),
    ("A Lantern for Ida", "a lighthouse keeper's last season"),
    ("The Glass Heron", "a glassblower who forges a famous bird"),
    ("Nine Bells of Dunmore", "a bell-ringer searching for a lost peal"),
    ("The Copper Tide", "two rival harbour pilots"),
    ("Ashes over Arnby", "a town rebuilt after a great fire"),
    ("The Quiet Cartographer", "a mapmaker who charts an unknown marsh"),
    ("Orchard of Clocks", "a clockmaker who plants a garden of timepieces"),
    ("The Last Ferry", "the final crossing of an old river ferry"),
    ("Songs for a Drowned Road", "villagers after a causeway floods"),
    ("The Kite Maker's Son", "a boy who flies messages over a wall"),
    ("Barley and Bone", "a harvest feud between two farms"),
    ("The Fenland Letters", "a postman crossing the northern fens"),
    ("Map of Small Rivers", "a surveyor's journey up twelve streams"),
    ("The Winter Loom", "weavers snowed in for a season"),
    ("Harbour of Small Lights", "a fishing fleet that sails by lantern"),
    ("The Rope Walk", "apprentices in a rope-making yard"),
    ("Seven Winters in Skarra", "a shepherd on a mountain farm"),
    ("The Tinsmith's Daughter", "a girl who repairs the town's lamps"),
    ("A Bridge of Reeds", "villagers building a crossing over a marsh"),
    ("The Heron Road", "pilgrims walking along a coast"),
    ("Letters from the Lock", "a canal keeper writing to his brother"),
    ("The Pepper Ship", "a merchant crew stranded in the south"),
    ("Under the Clock Tower", "a watchmaker's apprentice"),
    ("The Brine Sisters", "three sisters who run a salt works"),
    ("Night Train to Esk", "passengers on the last train of the year"),
    ("The Orchard Wall", "neighbours quarrelling over a boundary"),
    ("Fog over Tarrow", "a doctor on a foggy valley circuit"),
    ("The Bell Founder", "a foundry that casts a giant bell"),
)

NOVELIST_JOBS = ("novelist", "poet", "playwright", "essayist")

DISHES = (
    ("brine cake", "smoked eel", "barley"), ("fen pie", "pike", "wild leek"), ("kessel stew", "mutton", "juniper"),
    ("harbour broth", "mussels", "fennel"), ("reed bread", "rye", "caraway"), ("moor pudding", "oats", "blackcurrant"),
    ("salt crown", "cod", "potato"), ("tarn dumplings", "trout", "dill"), ("ember loaf", "spelt", "honey"),
    ("marsh toast", "samphire", "egg"), ("copper soup", "carrot", "ginger"), ("lantern buns", "saffron", "raisin"),
)

SHIPS = ("Grey Heron", "Morning Tern", "Salt Lily", "North Star of Esk", "Iron Wren", "Brave Kittiwake",
         "Quiet Gannet", "Amber Swan", "Windward Rose", "Sea Thistle", "Long Curlew", "Silver Plover")

ISLANDS = ("Skellig Vane", "Orrin Rock", "the Maddern Skerries", "Isle of Tarrow", "Brisk Island", "Halloran Key",
           "the Pell Banks", "Isle of Wyn", "Gannet Holm", "Corran Isle")

CREATURES = ("newt", "warbler", "moth", "orchid", "beetle", "shrew", "lichen", "minnow", "sedge", "finch")

DEVICES = ("tide clock", "rope loom", "fog siren", "salt press", "seed drill", "lamp bellows", "ice plough",
           "wind gauge", "peat cutter", "barrel lathe", "sail stitcher", "well pump")

INVENTOR_JOBS = ("clockmaker", "blacksmith", "instrument maker", "millwright", "tinsmith")

SITES = ("history of the town", "local heritage trail", "regional almanac", "visitor guide", "parish records",
         "county gazetteer", "old newspaper archive", "museum catalogue", "travel diary", "encyclopedia entry")

# Sentences with no answer in them, to pad contexts the way web snippets do.
NOISE = (
    "Opening hours vary by season; check before you travel.",
    "Parking is available near the harbour for a small fee.",
    "The town council publishes a newsletter every spring.",
    "Many visitors combine the trip with a walk along the cliffs.",
    "Photographs from the period are held in the county archive.",
    "Local bakeries still sell pastries named after the old quarter.",
    "A guided tour leaves from the market square at ten.",
    "The area is known for heavy autumn fog and sudden gales.",
    "School groups are welcome by appointment.",
    "A small gift shop sells maps and postcards.",
)
