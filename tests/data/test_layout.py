"""The state layout (``sim.base.layout``): regions that tile the state, zones that fit them."""

from __future__ import annotations

from sim.base import layout as L

REGIONS = {name: (start, size) for name, start, size in L.STATE_REGIONS}


def test_regions_tile_the_state_without_overlap() -> None:
    """Each region starts where the one before it ends, and together they fill the state."""
    end = 0
    for name, start, size in L.STATE_REGIONS:
        assert size >= 1, name
        assert start == end, f"{name} starts at {start}, the region before ends at {end}"
        end = start + size
    assert end == L.STATE_SIZE
    assert len(REGIONS) == len(L.STATE_REGIONS), "two regions share a name"


def test_every_region_is_a_layout_constant() -> None:
    for name, (start, _size) in REGIONS.items():
        assert getattr(L, name) == start, name


def test_header_holds_the_counters_and_a_game_the_zones() -> None:
    """``game.reset`` clears ``st[:HEADER]``: every zone's count lives there (so a new game
    starts with empty zones); the look-ahead bot's rollout state is a whole game's size."""
    for z in L.ZONES:
        assert z.count + z.instances <= L.HEADER, z.name
    assert REGIONS["ROLLOUT"] == (L.GAME_SIZE, L.GAME_SIZE)


def test_every_zone_has_a_capacity() -> None:
    """A zone's count region has one slot per instance, its card region one stride each."""
    for z in L.ZONES:
        counts = next(n for n, (s, _) in REGIONS.items() if s == z.count)
        cards = next(n for n, (s, _) in REGIONS.items() if s == z.base)
        assert REGIONS[counts][1] == z.instances, z.name
        assert REGIONS[cards][1] == z.stride * z.instances, z.name
        assert z.stride >= 1, z.name
    cards = {z.name: z.stride for z in L.ZONES}
    assert all(cards[n] == L.MAX_CARDS for n in ("deck", "discard", "hand", "out", "under", "box"))
    assert cards["city"] == L.N_SLOTS


def test_scratch_areas_are_named_regions() -> None:
    for name in ("TMP", "TMP2", "OPTS", "CITY_SCRATCH", "BOT_SCRATCH", "LA_SCRATCH"):
        assert name in REGIONS, name
    assert REGIONS["TMP"][1] == REGIONS["TMP2"][1] == L.MAX_CARDS


def test_every_state_view_field_lies_inside_one_region() -> None:
    """``StateView``'s named fields read exactly the region they are declared on (or a part of
    it): a field that ran into the next region would read another slot's data."""
    from math import prod

    from sim.run.view import StateField, StateView

    fields = {n: f for n, f in vars(StateView).items() if isinstance(f, StateField)}
    assert len(fields) > 30
    for name, f in fields.items():
        size = prod(f.shape) if f.shape else 1
        region = [r for r, (start, n) in REGIONS.items() if start <= f.start < start + n]
        assert len(region) == 1, name
        start, n = REGIONS[region[0]]
        if name == "header":  # every region before HEADER, at once
            assert (f.start, size) == (0, L.HEADER)
            continue
        if name == "kind_masks":  # PLAYED then HELD, copied out as one block
            assert (f.start, size) == (L.PLAYED, 4 * L.MASK_WORDS) and L.PLAYED + n == L.HELD
            continue
        assert f.start + size <= start + n, f"{name} runs past {region[0]}"
