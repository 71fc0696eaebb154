"""The Planner conformance check itself: every route the local Planner serves names an entity of
Graph's metadata (walked from the `planner` singleton or the `users` entity set), JSON batching
apart, and the check finds what Graph does not allow, inside a batch too."""

from bot.sync.standins.planner import PlannerStandin
from bot.sync.standins.planner.routes import Api
from tests.vendor_apis.planner_conformance import check, graph

# Each route the stand-in serves under /v1.0, with the entity Graph's metadata gives it.
SERVED = {
    ("GET", "/v1.0/planner/plans/{plan}"): ("plannerPlan", False),
    ("GET", "/v1.0/planner/plans/{plan}/buckets"): ("plannerBucket", True),
    ("GET", "/v1.0/planner/plans/{plan}/tasks"): ("plannerTask", True),
    ("POST", "/v1.0/planner/tasks"): ("plannerTask", True),
    ("GET", "/v1.0/planner/tasks/{task}"): ("plannerTask", False),
    ("PATCH", "/v1.0/planner/tasks/{task}"): ("plannerTask", False),
    ("DELETE", "/v1.0/planner/tasks/{task}"): ("plannerTask", False),
    ("GET", "/v1.0/planner/tasks/{task}/details"): ("plannerTaskDetails", False),
    ("PATCH", "/v1.0/planner/tasks/{task}/details"): ("plannerTaskDetails", False),
    ("GET", "/v1.0/users/{user}"): ("user", False),
}


def test_every_route_served_names_an_entity_of_the_metadata() -> None:
    served = {
        (route.method, route.path)
        for route in Api(PlannerStandin()).routes()
        if route.path.startswith("/v1.0/")  # type: ignore[attr-defined]
    }
    assert served == set(SERVED) | {("POST", "/v1.0/$batch")}  # Graph's batching: no entity
    for (_, path), entity in SERVED.items():
        assert graph().resolve(path) == entity, path


class Sent:
    method = "PATCH"
    path = "/v1.0/planner/tasks/abc"
    query: dict[str, str] = {}
    request_headers: dict[str, str] = {}
    request_body: object = {"percentComplete": "half", "colour": "red"}
    status = 204
    response_body: object = None


def test_the_check_finds_what_graph_does_not_allow() -> None:
    problems = check(graph(), Sent())
    assert any("If-Match" in p for p in problems)
    assert any("'half' is not Edm.Int32" in p for p in problems)
    assert any("no property 'colour'" in p for p in problems)
    wrong_place = Sent()
    wrong_place.path = "/v1.0/planner/tasks/abc/comments"
    assert any("no navigation property 'comments'" in p for p in check(graph(), wrong_place))
    listed = Sent()
    listed.method, listed.path, listed.request_body = "GET", "/v1.0/planner/plans/p/tasks", None
    listed.status, listed.response_body = 200, {"value": [{"id": "t", "title": None}]}
    assert any("null where Edm.String may not be" in p for p in check(graph(), listed))
    listed.response_body = {"value": [], "@odata.nextLink": "https://elsewhere/v1.0/x"}
    assert any("leaves the collection" in p for p in check(graph(), listed))


def test_an_assignment_must_be_a_planner_assignment() -> None:
    sent = Sent()
    sent.request_headers = {"If-Match": 'W/"x"'}
    sent.request_body = {"assignments": {"user-id": {"orderHint": 5}}}
    assert any("orderHint" in p for p in check(graph(), sent))
    sent.request_body = {"assignments": {"user-id": None}}
    assert check(graph(), sent) == []


def test_a_batch_is_checked_as_graph_documents_it_and_each_request_inside_as_one_alone() -> None:
    sent = Sent()
    sent.method, sent.path, sent.status = "POST", "/v1.0/$batch", 200
    reads = [
        {"id": str(n), "method": "GET", "url": f"/planner/tasks/t{n}/details"} for n in range(3)
    ]
    sent.request_body = {"requests": reads}
    sent.response_body = {
        "responses": [
            {"id": "0", "status": 200, "body": {"id": "t0", "description": "Why"}},
            {"id": "1", "status": 200, "body": {"id": "t1", "colour": "red"}},
            {"id": "2", "status": 429, "headers": {"Retry-After": "3"}, "body": {"nope": 1}},
        ]
    }
    problems = check(graph(), sent)
    assert any("plannerTaskDetails has no property 'colour'" in p for p in problems)
    assert any("not Graph's {error: {code, message}}" in p for p in problems)
    assert len(problems) == 2
    sent.request_body = {"requests": reads * 7}  # 21, and ids repeated
    assert any("1 to 20" in p for p in check(graph(), sent))
    sent.request_body = {"requests": reads}
    sent.response_body = {"responses": sent.response_body["responses"][:2]}
    assert any("answer each request once" in p for p in check(graph(), sent))
