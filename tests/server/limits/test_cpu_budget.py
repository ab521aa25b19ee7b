"""CPU time per client is bounded: verification work is measured and charged, a spent client
gets 429, and a record refused once is refused at once when sent again."""

from __future__ import annotations

import time

import pytest
from fastapi.testclient import TestClient

from game2048.server import create_app
from game2048.server.errors import ClientError
from game2048.server.limits.cpu import REFUSAL_WEIGHT, CpuBudget

from ..conftest import METRICS, Api, clear_of_a_minute_edge, next_move

CLIENT = "testclient"  # the address Starlette's test client sends from


@pytest.fixture(autouse=True)
def _clear_of_a_minute_edge():
    """Every test here fills a budget of windows of a minute, or reads one: each starts further
    from the clock's next minute than it takes, its app's start included."""
    clear_of_a_minute_edge(10.0)


def _burn(seconds: float) -> None:
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def _spent(budget: CpuBudget, client: str) -> float:
    """CPU seconds counted against ``client`` in the current window."""
    item = budget.items[0]
    return (item.amount - budget.strategy.get_window_stats(item, "cpu", client).remaining) / 1000


def test_work_is_charged_by_its_cpu_time():
    budget = CpuBudget("10/minute")
    with budget.spend("10.0.0.1", "finish"):
        _burn(0.05)
    assert 0.05 <= _spent(budget, "10.0.0.1") < 0.2
    assert _spent(budget, "10.0.0.2") == 0  # per address


def test_the_servers_own_work_inside_a_clients_block_is_not_charged():
    budget = CpuBudget("10/minute")
    with budget.spend("10.0.0.1", "finish"):
        _burn(0.05)
        with budget.aside():  # e.g. the finish's engine-like check, or the solver's first compile
            _burn(0.3)
    assert 0.05 <= _spent(budget, "10.0.0.1") < 0.2


def test_a_ranked_finishs_engine_check_is_not_charged_to_the_player(app):
    def slow_check(size, seed, log, max_tile):  # a check as dear as the solver's first compile
        _burn(0.5)
        return {"standing": "listed"}

    runner = app.state.runner
    runner.checking = runner._aside(slow_check)
    *_, done = Api(TestClient(app)).honest(4, 20)
    assert done.status_code == 200 and done.json()["ranked"], done.text
    assert _spent(runner.cpu_budget, CLIENT) < 0.4


def test_a_refusal_costs_more_than_the_work_it_took():
    budget = CpuBudget("10/minute")
    with pytest.raises(ClientError), budget.spend("10.0.0.1", "finish"):
        _burn(0.05)
        raise ClientError(422, "the log does not replay")
    assert _spent(budget, "10.0.0.1") >= 0.05 * REFUSAL_WEIGHT


def test_a_spent_client_is_refused_before_any_work():
    budget = CpuBudget("1/minute")
    budget.charge("10.0.0.1", 5.0)
    ran = False
    with pytest.raises(ClientError) as refused, budget.spend("10.0.0.1", "finish"):
        ran = True
    assert not ran
    assert refused.value.status == 429 and int(refused.value.headers["Retry-After"]) >= 1
    budget.check("10.0.0.2")  # others are not affected


def test_the_same_refused_record_is_refused_at_once_the_second_time():
    budget = CpuBudget("10/minute")
    with pytest.raises(ClientError), budget.spend("10.0.0.1", "finish", ("g1", "LLDD", 8)):
        _burn(0.02)
        raise ClientError(422, "the claimed score 8 does not match the replay's score 4")
    before = _spent(budget, "10.0.0.1")
    ran = False
    with pytest.raises(ClientError) as again, budget.spend("10.0.0.9", "finish", ("g1", "LLDD", 8)):
        ran = True
    assert not ran and again.value.status == 422 and "refused before" in again.value.message
    assert _spent(budget, "10.0.0.1") == before and _spent(budget, "10.0.0.9") == 0
    with budget.spend("10.0.0.1", "finish", ("g1", "LLDD", 4)):  # another claim is new work
        pass


def test_no_budget_means_no_refusal():
    budget = CpuBudget("0")
    budget.charge("10.0.0.1", 1e6)
    budget.check("10.0.0.1")


def test_a_refused_record_sent_again_is_refused_at_once(api):
    game = api.play(6, 4321, 1500)
    first = api.record(game, score=game.score + 4)
    assert first.status_code == 422 and "does not match" in first.json()["error"]
    spent = _spent(api.client.app.state.cpu_budget, CLIENT)
    assert spent > 0  # the refused replay was charged
    again = api.record(game, score=game.score + 4)
    assert again.status_code == 422 and "refused before" in again.json()["error"]
    assert _spent(api.client.app.state.cpu_budget, CLIENT) == spent  # refused at once, at no cost
    assert api.record(game).status_code == 201  # the honest claim still goes through


def test_a_record_refused_for_its_name_is_not_remembered_as_a_bad_record(api):
    game = api.play(4, 99, 30)
    assert api.record(game, name="\u200b\u200b").status_code == 422
    assert api.record(game).status_code == 201


def test_a_ranked_finish_is_measured_against_the_budget(api):
    _, _, r = api.honest(moves=60)
    assert r.status_code == 200, r.text
    assert _spent(api.client.app.state.cpu_budget, CLIENT) > 0


def test_finishing_when_the_budget_is_spent_is_429_and_nothing_is_stored(settings):
    from dataclasses import replace

    app = create_app(replace(settings, cpu_budget="1/minute"))
    try:
        with TestClient(app) as client:
            issued = client.post("/api/games", json={"size": 4}).json()
            app.state.cpu_budget.charge(CLIENT, 2.0)
            finish = {"token": issued["token"], "name": "Ada"}
            r = client.post(f"/api/games/{issued['id']}/finish", json=finish)
            assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1
            assert "CPU" in r.json()["error"]
            assert client.get(f"/api/games/{issued['id']}").status_code == 404
            record = {"size": 4, "seed": 1, "log": "", "score": 0, "name": "Ada"}
            r = client.post("/api/records", json=record)
            assert r.status_code == 429 and "CPU" in r.json()["error"]
            with client.websocket_connect(f"/api/games/{issued['id']}/play") as ws:
                ws.send_json({"op": "finish", "token": issued["token"], "name": "Ada"})
                answer = ws.receive_json()
                assert answer["status"] == 429 and "CPU" in answer["error"]
                # the socket stays open after a refusal, and moves (no verification) go on
                ws.send_json({"op": "moves", "token": issued["token"], "at": 0,
                              "moves": next_move(issued["board"])})
                assert ws.receive_json()["at"] == 1
            assert client.get(f"/api/games/{issued['id']}").status_code == 404
            metrics = client.get("/metrics", headers=METRICS).text
            assert 'game2048_rate_limited_total{limit="cpu"}' in metrics
    finally:
        app.state.engine.dispose()


def test_hints_have_a_cpu_budget_of_their_own(settings):
    from dataclasses import replace

    app = create_app(replace(settings, hint_cpu_budget="1/minute"))
    try:
        with TestClient(app) as client:
            app.state.hint_budget.charge(CLIENT, 2.0)
            r = client.post("/api/hint", json={"size": 4, "board": [[2, 0, 0, 0], [0] * 4, [0] * 4, [0] * 4]})
            assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1
            app.state.cpu_budget.check(CLIENT)  # the verification budget is untouched
    finally:
        app.state.engine.dispose()
