"""SQL of the annotation endpoints beyond the core statements: the get and count statements.

The get statement is assembled from fixed fragments, one per filter the request uses; every value
is a numbered parameter, never part of the text. Its rows come back with `body` as text, so the
service hands the stored JSON through untouched.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from redline.pg import Connection, Pool
from redline.pg.conditions import Conditions
from redline.pg.pages import within_byte_budget
from redline.runtime.visibility import seen_by_every_reader, visibility_condition

# get and count -----------------------------------------------------------------------------------


@dataclass
class Viewer:
    """A user-token caller: which annotations of the visible documents they may see."""

    user_id: str
    # Documents the user reaches only because they are public: organizationPrivate annotations
    # there are hidden from them.
    public_only_documents: list[str] = field(default_factory=list)
    # Record what the page returns as viewed by the user (the `unread` of count/get).
    record_views: bool = True


@dataclass
class Cursor:
    """The last row of the previous page (keyset paging on lastUpdated, then annotationId)."""

    last_updated: int
    annotation_id: str


@dataclass
class AnnotationQuery:
    api_key: str
    organization_id: str
    document_ids: list[str] | None = None
    location_ids: list[str] | None = None
    annotation_ids: list[str] | None = None
    creator_ids: list[str] | None = None
    mentioned_ids: list[str] | None = None
    resolved_by: str | None = None
    status_ids: list[str] | None = None
    agent_id: str | None = None
    execution_id: str | None = None
    agent_type: str | None = None
    agent_source: str | None = None
    agent_suggestions: bool = False
    agent_comments: bool = False
    updated_after: int | None = None
    updated_before: int | None = None
    created_after: int | None = None
    created_before: int | None = None
    descending: bool = True
    after: Cursor | None = None
    # A page reads one row more than it holds (`limit`), to know whether another follows; with
    # `byte_budget` it also ends where its bodies reach that many bytes (redline.pg.pages).
    limit: int | None = None
    byte_budget: int | None = None
    viewer: Viewer | None = None


# A page's filters on these columns each have an index in page order (migration 0003); a filter
# on several values of one of them is read as one such index range per value (see `_spread`).
_SPREADABLE = ("document_ids", "status_ids", "location_ids", "creator_ids")
# At most this many ranges: beyond it (a folder's documents, say) the values are one `= ANY`
# condition and the matching rows are sorted.
MAX_SPREAD_VALUES = 30
# What a page's range reads its spread value from (`_spread`).
_SPREAD_VALUE = "spread.value"


def _spread(q: AnnotationQuery) -> str | None:
    """The filter whose values a page reads as separate index ranges, merged: every range comes
    in page order and stops at the page's size, so the page costs the same whatever the size of
    the documents. None: no filter has more than one value, or none is paged."""
    if q.limit is None:
        return None
    for name in _SPREADABLE:
        values = getattr(q, name)
        if values is not None and 1 < len(values) <= MAX_SPREAD_VALUES:
            return name
    return None


def _any(b: Conditions, column: str, values: list[str], spread: bool) -> None:
    # One value is an equality: the planner then reads an index in lastUpdated order.
    if spread:
        b.conditions.append(f"{column} = {_SPREAD_VALUE}")
    elif len(values) == 1:
        b.where(f"{column} = {{}}", values[0])
    else:
        b.where(f"{column} = ANY({{}}::text[])", values)


def _filters(
    b: Conditions, q: AnnotationQuery, spread: str | None = None, mentions: bool = False
) -> None:
    """`mentions`: the documents and mentioned users come from the mention ranges instead (an
    annotation then is looked up by its key alone, never by scanning its document)."""
    b.where("a.api_key = {}", q.api_key)
    b.where("a.organization_id = {}", q.organization_id)
    if q.document_ids is not None and not mentions:
        _any(b, "a.document_id", q.document_ids, spread == "document_ids")
    if q.location_ids is not None:
        _any(b, "a.location_id", q.location_ids, spread == "location_ids")
    if q.annotation_ids is not None:
        b.where("a.annotation_id = ANY({}::text[])", q.annotation_ids)
    if q.creator_ids is not None:
        _any(b, "a.creator_user_id", q.creator_ids, spread == "creator_ids")
    if q.mentioned_ids is not None and not mentions:
        b.where("a.mentioned_user_ids && {}::text[]", q.mentioned_ids)
    if q.resolved_by is not None:
        b.where("a.resolved_by = {}", q.resolved_by)
    if q.status_ids is not None:
        _any(b, "a.status_id", q.status_ids, spread == "status_ids")
    if q.agent_id is not None:
        b.where("a.agent_id = {}", q.agent_id)
    if q.execution_id is not None:
        b.where("a.execution_id = {}", q.execution_id)
    if q.agent_type is not None:
        b.where("a.agent_type = {}", q.agent_type)
    if q.agent_source is not None:
        b.where("a.agent_source = {}", q.agent_source)
    if q.agent_suggestions:
        b.where("a.source_type = 'agent' AND a.suggestion_status = 'pending'")
    if q.agent_comments:
        b.where("a.source_type = 'agent'")
    if q.updated_after is not None:
        b.where("a.last_updated >= {}", q.updated_after)
    if q.updated_before is not None:
        b.where("a.last_updated <= {}", q.updated_before)
    if q.created_after is not None:
        b.where("a.created_at >= {}", q.created_after)
    if q.created_before is not None:
        b.where("a.created_at <= {}", q.created_before)
    if q.viewer is not None:
        visibility_condition(b, q.viewer.user_id, q.viewer.public_only_documents)


def _mention_ranges(q: AnnotationQuery) -> bool:
    """Whether a page reads a mention filter from the mention index (migration 0005): one range
    in page order per document and mentioned user, for a paged read pinned to documents."""
    if q.limit is None or q.mentioned_ids is None or q.document_ids is None:
        return False
    return len(q.document_ids) * len(q.mentioned_ids) <= MAX_SPREAD_VALUES


def _order(alias: str, pinned: bool, descending: bool) -> tuple[str, str]:
    """The page's ORDER BY over the rows of `alias`, and the key it starts with.

    Ties on lastUpdated are broken by annotationId ascending in both directions' mirror image,
    which is the order of the indexes (read forwards for desc, backwards for asc). A read not
    pinned to documents orders by the organization-wide index's expression, -lastUpdated
    (migration 0003): the same order, written so that only such a read can use that index."""
    key = f"{alias}.last_updated" if pinned else f"(-{alias}.last_updated)"
    newest_first = "DESC" if pinned else "ASC"
    oldest_first = "ASC" if pinned else "DESC"
    if descending:
        return f"{key} {newest_first}, {alias}.annotation_id ASC", key
    return f"{key} {oldest_first}, {alias}.annotation_id DESC", key


def annotations_statement(q: AnnotationQuery) -> tuple[str, list[Any]]:
    """The get endpoint's one statement and its parameters."""
    b = Conditions()
    mentions = _mention_ranges(q)
    spread = None if mentions else _spread(q)
    _filters(b, q, spread, mentions)
    pinned = q.document_ids is not None
    # The rows a range reads in page order: the mention index's, or the annotations' own.
    ranged = "m" if mentions else "a"
    order, _ = _order("a", pinned, q.descending)
    range_order, order_key = _order(ranged, pinned, q.descending)
    if q.after is not None:
        t = b.param(q.after.last_updated if pinned else -q.after.last_updated)
        i = b.param(q.after.annotation_id)
        # Past the cursor: further along the key in the page's direction, or level with it and
        # further along annotationId.
        past = "<" if pinned == q.descending else ">"
        past_id = ">" if q.descending else "<"
        b.conditions.append(
            f"{order_key} {past}= {t} AND ({order_key} {past} {t}"
            f" OR {ranged}.annotation_id {past_id} {i})"
        )
    limit = "" if q.limit is None else f" LIMIT {b.param(q.limit)}"
    rows = "comments.annotation a"
    if mentions:
        documents, users = b.param(q.document_ids), b.param(q.mentioned_ids)
        rows = (
            "comments.annotation_mention m JOIN comments.annotation a"
            " ON a.api_key = m.api_key AND a.organization_id = m.organization_id"
            " AND a.annotation_id = m.annotation_id"
        )
        b.conditions.append("m.document_id = d.document_id AND m.user_id = u.user_id")
    page = (
        "SELECT a.document_id, a.annotation_id, a.last_updated, a.body::text AS body"  # noqa: S608
        f" FROM {rows} WHERE " + " AND ".join(b.conditions) + f" ORDER BY {range_order}{limit}"
    )
    if mentions:
        # An annotation that mentions several of the users is in each of their ranges: every
        # range's first page holds the rows it contributes to the page, so the page is the
        # first of the ranges' rows once each.
        distinct = "" if len(q.mentioned_ids or ()) == 1 else "DISTINCT ON (a.annotation_id) "
        page = (
            f"SELECT a.* FROM (SELECT {distinct}a.* FROM unnest({documents}::text[])"  # noqa: S608
            f" AS d(document_id) CROSS JOIN unnest({users}::text[]) AS u(user_id)"
            f" CROSS JOIN LATERAL ({page}) a) a ORDER BY {order}{limit}"
        )
    elif spread is not None:
        page = (
            "SELECT a.* FROM unnest("  # noqa: S608
            + b.param(getattr(q, spread))
            + f"::text[]) AS spread(value) CROSS JOIN LATERAL ({page}) a ORDER BY {order}{limit}"
        )
    outer_order = order.replace("a.", "p.")
    if q.limit is not None and q.byte_budget is not None:
        page = within_byte_budget(
            page,
            order=order.replace("a.", "q."),
            row_bytes="octet_length(q.body)",
            page_size=b.param(q.limit - 1),
            budget=b.param(q.byte_budget),
        )
        outer_order = "p.page_rank"
    if q.viewer is None or not q.viewer.record_views:
        return page, b.params
    # A user's own reads mark what they were shown as viewed, in the same statement.
    key, org, user = b.param(q.api_key), b.param(q.organization_id), b.param(q.viewer.user_id)
    statement = (
        f"WITH p AS ({page}), seen AS ("  # noqa: S608
        "INSERT INTO comments.annotation_view (api_key, organization_id, annotation_id, user_id,"
        f" viewed_at) SELECT {key}, {org}, p.annotation_id, {user},"
        " (extract(epoch FROM clock_timestamp()) * 1000)::bigint FROM p"
        " ON CONFLICT DO NOTHING)"
        f" SELECT p.* FROM p ORDER BY {outer_order}"
    )
    return statement, b.params


# How a page statement is planned (see select_annotations).
PAGE_PLAN_SETTINGS = (
    "SET LOCAL enable_sort = off; SET LOCAL enable_incremental_sort = off; SET LOCAL jit = off"
)


async def select_annotations(pool: Pool, q: AnnotationQuery) -> list[Any]:
    statement, params = annotations_statement(q)
    async with pool.acquire() as conn:
        # A mention filter the mention index cannot serve (organization-wide, or too many
        # ranges) finds its rows through the GIN index, and they are then sorted.
        if q.mentioned_ids is not None and not _mention_ranges(q):
            return await conn.fetch(statement, *params)
        # Any other page must come from an index in page order, never from sorting a
        # document's rows: the planner's row estimates cannot be trusted for that (right after
        # a document grew, before statistics catch up, it estimated one row and sorted
        # 40,000), so sorting is made its last resort. Where no index gives the order (many
        # values beyond MAX_SPREAD_VALUES), it still sorts what matches. Servers before
        # PostgreSQL 18 do it by adding a huge cost, which would also set off JIT compilation
        # (hundreds of milliseconds) for a statement that reads a page. The settings hold for
        # one transaction, begun with them in one round trip (a transaction left open by an
        # error is rolled back when the connection goes back to the pool).
        await conn.execute(f"BEGIN; {PAGE_PLAN_SETTINGS}")
        rows = await conn.fetch(statement, *params)
        await conn.execute("COMMIT")
        return rows


async def document_ids(
    conn: Connection | Pool, api_key: str, organization_id: str, limit: int
) -> list[str]:
    """The organization's documents that hold annotations, at most `limit`."""
    rows = await conn.fetch(
        "SELECT DISTINCT document_id FROM comments.annotation"
        " WHERE api_key = $1 AND organization_id = $2 ORDER BY document_id LIMIT $3",
        api_key,
        organization_id,
        limit,
    )
    return [r["document_id"] for r in rows]


def count_statement(
    api_key: str,
    organization_id: str,
    document_ids: list[str],
    user_id: str,
    status_ids: list[str] | None,
    viewer: Viewer | None,
) -> tuple[str, list[Any]]:
    """The count endpoint's statement: per document, every annotation, and those `user_id` has
    neither written nor viewed.

    The counts come from the tallies (migration 0004), not the annotations: for the key's own
    token every bucket counts; for a user token the buckets every reader sees, plus, one row at a
    time, the few annotations whose visibility turns on the reader."""
    b = Conditions()
    key, org, user = b.param(api_key), b.param(organization_id), b.param(user_id)
    documents, statuses = b.param(document_ids), b.param(status_ids)
    public_only = None if viewer is None else b.param(viewer.public_only_documents)

    def counted(alias: str) -> str:
        """The rows (of a tally or of annotations) of the documents and statuses counted."""
        return (
            f"{alias}.api_key = {key} AND {alias}.organization_id = {org}"
            f" AND {alias}.document_id = ANY({documents}::text[])"
            f" AND ({statuses}::text[] IS NULL OR {alias}.status_id = ANY({statuses}::text[]))"
        )

    def bucket(alias: str) -> str:
        """The counted tally rows that hold annotations every reader sees alike."""
        if public_only is None:
            return counted(alias)
        return f"{counted(alias)} AND {seen_by_every_reader(alias, public_only)}"

    scanned = ""
    if viewer is not None and public_only is not None:
        # The rest of the rule, row by row; the partial index annotation_not_public finds them.
        b.conditions.append(
            f"{counted('a')} AND a.visibility <> 'public'"
            f" AND NOT {seen_by_every_reader('a', public_only)}"
        )
        visibility_condition(b, viewer.user_id, viewer.public_only_documents)
        scanned = (
            ", scanned AS (SELECT a.document_id, count(*) AS total, count(*) FILTER ("  # noqa: S608
            f" WHERE a.creator_user_id IS DISTINCT FROM {user} AND NOT EXISTS ("
            " SELECT 1 FROM comments.annotation_view v"
            f" WHERE v.api_key = {key} AND v.organization_id = {org}"
            f" AND v.annotation_id = a.annotation_id AND v.user_id = {user})) AS unread"
            " FROM comments.annotation a WHERE "
            + " AND ".join(b.conditions)
            + " GROUP BY a.document_id)"
        )
    statement = (
        "WITH tallied AS (SELECT t.document_id, sum(t.annotations) AS total"  # noqa: S608
        f" FROM comments.annotation_tally t WHERE {bucket('t')} GROUP BY t.document_id),"
        " seen AS (SELECT s.document_id, sum(s.annotations) AS seen"
        f" FROM comments.annotation_seen_tally s WHERE s.user_id = {user} AND {bucket('s')}"
        f" GROUP BY s.document_id){scanned}"
        " SELECT d.document_id,"
        " (coalesce(t.total, 0)"
        + (" + coalesce(x.total, 0)" if scanned else "")
        + ")::bigint AS total, (coalesce(t.total, 0) - coalesce(s.seen, 0)"
        + (" + coalesce(x.unread, 0)" if scanned else "")
        + f")::bigint AS unread FROM unnest({documents}::text[]) AS d(document_id)"
        " LEFT JOIN tallied t USING (document_id) LEFT JOIN seen s USING (document_id)"
        + (" LEFT JOIN scanned x USING (document_id)" if scanned else "")
    )
    return statement, b.params


async def count_annotations(
    conn: Connection | Pool,
    api_key: str,
    organization_id: str,
    document_ids: list[str],
    user_id: str,
    status_ids: list[str] | None,
    viewer: Viewer | None,
) -> list[Any]:
    statement, params = count_statement(
        api_key, organization_id, document_ids, user_id, status_ids, viewer
    )
    return await conn.fetch(statement, *params)
