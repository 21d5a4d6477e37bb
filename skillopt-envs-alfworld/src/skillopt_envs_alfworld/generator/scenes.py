"""Room templates: which receptacles a room has, which objects live where.

Numbers follow ALFWorld's vocabulary (object and receptacle type names as the real games
spell them, instances numbered from 1). ``homes`` lists where an object type may start;
``targets`` lists where a task may ask for an object to go.
"""

from __future__ import annotations

import attrs

OPENABLE = frozenset({"cabinet", "drawer", "fridge", "microwave", "safe"})


@attrs.frozen(kw_only=True)
class Room:
    name: str
    receptacles: dict[str, tuple[int, int]]  # kind -> (min, max) instances
    objects: dict[str, tuple[str, ...]]  # object type -> receptacle kinds it may start in
    lamp_on: tuple[str, ...] = ()  # receptacle kinds a desklamp may stand on


FOOD = ("countertop", "diningtable", "fridge", "cabinet", "shelf")
DISH = ("countertop", "diningtable", "cabinet", "shelf", "sinkbasin", "drawer")
UTENSIL = ("countertop", "diningtable", "drawer", "sinkbasin")

KITCHEN = Room(
    name="kitchen",
    receptacles={
        "cabinet": (2, 5), "coffeemachine": (1, 1), "countertop": (1, 3), "diningtable": (0, 1), "drawer": (1, 3),
        "fridge": (1, 1), "garbagecan": (1, 1), "microwave": (1, 1), "shelf": (0, 2), "sinkbasin": (1, 1),
        "stoveburner": (2, 4), "toaster": (1, 1),
    },
    objects={
        "apple": FOOD + ("garbagecan",), "bread": FOOD, "egg": FOOD + ("garbagecan",), "lettuce": FOOD,
        "potato": FOOD + ("garbagecan",), "tomato": FOOD + ("garbagecan",), "mug": DISH + ("coffeemachine",),
        "cup": DISH, "plate": DISH, "bowl": DISH, "pan": ("stoveburner", "countertop", "cabinet"),
        "pot": ("stoveburner", "countertop", "cabinet"), "knife": UTENSIL, "fork": UTENSIL, "spoon": UTENSIL,
        "spatula": UTENSIL, "butterknife": UTENSIL, "ladle": UTENSIL, "saltshaker": ("countertop", "cabinet", "shelf"),
        "peppershaker": ("countertop", "cabinet", "shelf"), "dishsponge": ("countertop", "sinkbasin", "cabinet"),
        "soapbottle": ("countertop", "cabinet", "shelf"), "winebottle": ("countertop", "fridge", "cabinet", "diningtable"),
    },
)

BEDROOM = Room(
    name="bedroom",
    receptacles={
        "bed": (1, 1), "desk": (1, 2), "drawer": (2, 4), "dresser": (1, 1), "garbagecan": (1, 1), "safe": (0, 1),
        "shelf": (1, 3), "sidetable": (1, 2),
    },
    objects={
        "alarmclock": ("desk", "sidetable", "shelf", "dresser"), "book": ("bed", "desk", "shelf", "sidetable"),
        "cd": ("desk", "drawer", "shelf", "safe", "garbagecan"), "cellphone": ("bed", "desk", "drawer", "sidetable", "dresser"),
        "creditcard": ("desk", "drawer", "dresser", "shelf"), "keychain": ("desk", "drawer", "dresser", "safe", "shelf"),
        "laptop": ("bed", "desk"), "pen": ("desk", "drawer", "shelf", "sidetable"), "pencil": ("desk", "drawer", "shelf"),
        "pillow": ("bed",), "mug": ("desk", "shelf", "sidetable"), "bowl": ("desk", "shelf"),
        "statue": ("shelf", "dresser", "desk"), "vase": ("shelf", "dresser"),
    },
    lamp_on=("desk", "sidetable", "dresser"),
)

LIVINGROOM = Room(
    name="livingroom",
    receptacles={
        "armchair": (0, 1), "cabinet": (1, 3), "coffeetable": (1, 1), "drawer": (1, 3), "garbagecan": (1, 1),
        "shelf": (0, 2), "sidetable": (1, 2), "sofa": (1, 1), "tvstand": (1, 1),
    },
    objects={
        "remotecontrol": ("sofa", "coffeetable", "sidetable", "armchair", "tvstand"),
        "keychain": ("coffeetable", "sidetable", "drawer", "tvstand"), "creditcard": ("coffeetable", "sidetable", "drawer", "armchair"),
        "newspaper": ("sofa", "coffeetable", "armchair", "garbagecan"), "pillow": ("sofa", "armchair"),
        "vase": ("shelf", "tvstand", "cabinet", "coffeetable"), "statue": ("shelf", "tvstand", "coffeetable", "sidetable"),
        "box": ("coffeetable", "tvstand", "sidetable", "cabinet"), "watch": ("coffeetable", "sidetable", "drawer"),
        "laptop": ("sofa", "coffeetable", "armchair"), "book": ("coffeetable", "shelf", "sidetable"),
    },
    lamp_on=("sidetable", "coffeetable"),
)

BATHROOM = Room(
    name="bathroom",
    receptacles={
        "bathtubbasin": (0, 1), "cabinet": (2, 4), "countertop": (1, 1), "drawer": (0, 3), "garbagecan": (1, 1),
        "handtowelholder": (1, 1), "shelf": (0, 2), "sinkbasin": (1, 2), "toilet": (1, 1), "towelholder": (1, 1),
    },
    objects={
        "soapbar": ("countertop", "sinkbasin", "bathtubbasin", "toilet", "cabinet"), "soapbottle": ("countertop", "toilet", "cabinet", "shelf"),
        "spraybottle": ("countertop", "toilet", "cabinet", "garbagecan"), "toiletpaper": ("toilet", "cabinet", "shelf", "countertop"),
        "candle": ("countertop", "toilet", "shelf", "cabinet"), "cloth": ("countertop", "cabinet", "bathtubbasin", "drawer"),
        "tissuebox": ("toilet", "shelf", "countertop"), "dishsponge": ("countertop", "cabinet", "bathtubbasin"),
        "scrubbrush": ("toilet", "cabinet"), "handtowel": ("handtowelholder", "countertop"), "towel": ("towelholder", "bathtubbasin"),
    },
)

ROOMS = {room.name: room for room in (KITCHEN, BEDROOM, LIVINGROOM, BATHROOM)}

# Which rooms, objects and targets each task type draws from (ALFWorld's combinations).
PLACE_TARGETS = {
    "kitchen": ("cabinet", "countertop", "diningtable", "drawer", "fridge", "garbagecan", "microwave", "shelf", "sinkbasin"),
    "bedroom": ("bed", "desk", "drawer", "dresser", "garbagecan", "safe", "shelf", "sidetable"),
    "livingroom": ("armchair", "cabinet", "coffeetable", "drawer", "garbagecan", "shelf", "sidetable", "sofa"),
    "bathroom": ("cabinet", "countertop", "drawer", "garbagecan", "shelf", "toilet", "bathtubbasin"),
}
TASK_ROOMS = {
    "pick_and_place": ("kitchen", "bedroom", "livingroom", "bathroom"),
    "pick_two": ("kitchen", "bedroom", "livingroom", "bathroom"),
    "look_at_obj_in_light": ("bedroom", "livingroom"),
    "pick_clean_then_place": ("kitchen", "bathroom"),
    "pick_heat_then_place": ("kitchen",),
    "pick_cool_then_place": ("kitchen",),
}
STATE_OBJECTS = {
    "clean": ("apple", "lettuce", "potato", "tomato", "mug", "cup", "plate", "bowl", "pan", "pot", "knife", "fork",
              "spoon", "spatula", "butterknife", "ladle", "cloth", "soapbar", "dishsponge"),
    "hot": ("apple", "bread", "egg", "potato", "tomato", "mug", "cup", "plate"),
    "cool": ("apple", "bread", "egg", "lettuce", "potato", "tomato", "mug", "cup", "plate", "bowl", "pan", "pot", "winebottle"),
}
STATE_TARGETS = {
    "clean": ("cabinet", "countertop", "diningtable", "drawer", "fridge", "microwave", "shelf", "garbagecan", "toilet"),
    "hot": ("cabinet", "countertop", "diningtable", "fridge", "garbagecan", "shelf"),
    "cool": ("cabinet", "countertop", "diningtable", "microwave", "shelf", "garbagecan"),
}
LOOK_OBJECTS = ("alarmclock", "book", "cd", "cellphone", "creditcard", "keychain", "pen", "pencil", "remotecontrol",
                "statue", "vase", "box", "watch", "newspaper", "mug", "bowl", "pillow", "laptop")
