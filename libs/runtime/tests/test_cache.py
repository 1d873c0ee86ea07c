import time

from redline.runtime.cache import TtlCache


def test_entries_expire_after_their_time() -> None:
    cache: TtlCache[str, int] = TtlCache(0.05)
    cache.put("a", 1)
    assert cache.get("a") == 1
    time.sleep(0.06)
    assert cache.get("a") is None


def test_drop_and_drop_where() -> None:
    cache: TtlCache[str, int] = TtlCache(60)
    for key in ("a1", "a2", "b1"):
        cache.put(key, 1)
    cache.drop("b1")
    cache.drop_where(lambda key: key.startswith("a"))
    assert [cache.get(k) for k in ("a1", "a2", "b1")] == [None, None, None]


def test_zero_ttl_disables_caching() -> None:
    cache: TtlCache[str, int] = TtlCache(0)
    cache.put("a", 1)
    assert cache.get("a") is None


def test_a_full_cache_stays_bounded() -> None:
    cache: TtlCache[int, int] = TtlCache(60, max_entries=10)
    for key in range(25):
        cache.put(key, key)
    assert cache.get(24) == 24
    assert sum(cache.get(k) is not None for k in range(25)) <= 10


def test_a_value_computed_across_a_drop_is_not_stored() -> None:
    cache: TtlCache[str, int] = TtlCache(60)
    epoch = cache.epoch
    cache.drop("a")  # the change happened while the value was being computed
    cache.put("a", 1, since=epoch)
    assert cache.get("a") is None
    cache.put("a", 2, since=cache.epoch)
    assert cache.get("a") == 2
