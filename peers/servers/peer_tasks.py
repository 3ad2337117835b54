"""Task engine shared by our Python test peers (py_mcp_server.py, fastmcp_echo_server.py).

Neither `mcp` 2.3.0 nor FastMCP 4.2.3 (without the unpublished `fastmcp-tasks` 4.2.3) runs tools
as tasks, so the peers keep their own store and serve both wire forms from it:

  legacy (2025-11-25):  tools/call with params.task {ttl} -> CreateTaskResult {task: {...}};
                        tasks/get, tasks/result (blocks until terminal), tasks/list, tasks/cancel;
                        input inside a task: status input_required, then the elicitation/create
                        request is sent on the stream of the client's tasks/result request.
  modern (2026-07-28,   tools/call -> {resultType: "task", taskId, status, ttlMs, pollIntervalMs, ...};
   io.modelcontextprotocol/tasks extension):
                        tasks/get carries result/error/inputRequests; tasks/update {inputResponses};
                        tasks/cancel (empty ack).

Task tools (name -> 2025-11-25 execution.taskSupport):
  slow_task(ms)      optional: completes `ms` after creation with "slow_task done after <ms> ms"
  needs_input_task   required: goes input_required ~100 ms after creation (elicitation: a name),
                     then completes ~100 ms after the answer with "Hello, <name>!"
  required_task(ms)  required: completes after `ms` (default 100) with "required_task done"

State is advanced lazily on every access (no background workers), so the store is safe to share
across stateless requests. Task ids are 128-bit random hex. No task status notifications are sent.

The first half (TaskStore) is plain Python; the second half is the glue to the `mcp` 2.x runner
that both peers sit on (FastMCP 4.x runs on the same low-level server): the method handlers for
tasks/*, the 2026-07-28 tools/call decision, and a `Server.middleware` for the 2025-11-25 surface.
"""
from __future__ import annotations

import asyncio
import datetime
import secrets
import time
from typing import Any, Awaitable, Callable

EXTENSION_ID = "io.modelcontextprotocol/tasks"
RELATED_TASK = "io.modelcontextprotocol/related-task"
LEGACY_VERSION = "2025-11-25"
TASK_TOOLS = {"slow_task": "optional", "needs_input_task": "required", "required_task": "required"}
POLL_MS = 100
DEFAULT_TTL_MS = 60_000  # legacy default when task.ttl is absent; also the fixed modern ttlMs
MAX_TTL_MS = 600_000
TERMINAL = ("completed", "failed", "cancelled")
NAME_SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}

# JSON-RPC error codes
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
MISSING_CAPABILITY = -32021
MISSING_EXTENSION_DATA = {"requiredCapabilities": {"extensions": {EXTENSION_ID: {}}}}


class TaskError(Exception):
    """A JSON-RPC error the glue turns into its SDK's error type."""

    def __init__(self, code: int, message: str, data: Any = None):
        super().__init__(code, message, data)
        self.code, self.message, self.data = code, message, data


def _iso(t: float) -> str:
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _text(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": False}


def _ms_arg(args: dict[str, Any], default: int) -> int:
    try:
        return max(0, min(int(args.get("ms", default)), MAX_TTL_MS))
    except (TypeError, ValueError):
        raise TaskError(INVALID_PARAMS, "ms must be an integer number of milliseconds") from None


class PeerTask:
    def __init__(self, tool: str, args: dict[str, Any], era: str, ttl_ms: int):
        self.id = secrets.token_hex(16)
        self.tool, self.era, self.ttl_ms = tool, era, ttl_ms
        self.created = self.updated = time.time()
        self.status, self.message = "working", None
        self.result: dict[str, Any] | None = None
        self.error: dict[str, Any] | None = None
        self.input_requests: dict[str, Any] = {}
        self.asking = False  # legacy: an elicitation is in flight on some tasks/result stream
        now = time.monotonic()
        self.ask_at = now + 0.1 if tool == "needs_input_task" else None
        self.done_at = None if tool == "needs_input_task" else now + _ms_arg(args, 100 if tool == "required_task" else 1000) / 1000
        self.done_text = "required_task done" if tool == "required_task" else f"slow_task done after {_ms_arg(args, 1000)} ms"
        self.message = "working on it"

    # --- state machine -------------------------------------------------------------------------
    def _set(self, status: str, message: str | None) -> None:
        self.status, self.message, self.updated = status, message, time.time()

    def refresh(self) -> None:
        if self.status in TERMINAL:
            return
        now = time.monotonic()
        if self.status == "working" and self.ask_at is not None and now >= self.ask_at:
            self.ask_at = None
            self.input_requests = {"name": {"method": "elicitation/create", "params": {
                "mode": "form", "message": "What is your name?", "requestedSchema": NAME_SCHEMA}}}
            self._set("input_required", "waiting for a name (elicitation)")
        if self.status == "working" and self.done_at is not None and now >= self.done_at:
            self.result = _text(self.done_text)
            self._set("completed", "done")

    def answer(self, key: str, response: Any) -> bool:
        """Apply one input response; False when `key` is not outstanding (ignored)."""
        if self.status != "input_required" or key not in self.input_requests or not isinstance(response, dict):
            return False
        self.input_requests = {}
        action = response.get("action")
        name = (response.get("content") or {}).get("name") if action == "accept" else None
        self.done_text = f"Hello, {name}!" if name else f"No name given ({action})."
        self.done_at = time.monotonic() + 0.1
        self._set("working", "got the answer, finishing")
        return True

    def fail(self, code: int, message: str) -> None:
        self.error = {"code": code, "message": message}
        self._set("failed", message)

    def expired(self) -> bool:
        return time.time() > self.created + self.ttl_ms / 1000

    # --- wire shapes ---------------------------------------------------------------------------
    def legacy(self) -> dict[str, Any]:
        d = {"taskId": self.id, "status": self.status, "createdAt": _iso(self.created),
             "lastUpdatedAt": _iso(self.updated), "ttl": self.ttl_ms, "pollInterval": POLL_MS}
        if self.message:
            d["statusMessage"] = self.message
        return d

    def modern(self) -> dict[str, Any]:
        d = {"taskId": self.id, "status": self.status, "createdAt": _iso(self.created),
             "lastUpdatedAt": _iso(self.updated), "ttlMs": self.ttl_ms, "pollIntervalMs": POLL_MS}
        if self.message:
            d["statusMessage"] = self.message
        if self.status == "completed":
            d["result"] = self.result
        elif self.status == "failed":
            d["error"] = self.error
        elif self.status == "input_required":
            d["inputRequests"] = self.input_requests
        return d


class TaskStore:
    def __init__(self) -> None:
        self.tasks: dict[str, PeerTask] = {}

    def _purge(self) -> None:
        for tid in [t.id for t in self.tasks.values() if t.expired()]:
            del self.tasks[tid]

    def create(self, tool: str, args: dict[str, Any], era: str, ttl_ms: int | None = None) -> PeerTask:
        self._purge()
        if era == "legacy":
            ttl = DEFAULT_TTL_MS if ttl_ms is None else max(1, min(int(ttl_ms), MAX_TTL_MS))
        else:
            ttl = DEFAULT_TTL_MS
        task = PeerTask(tool, args or {}, era, ttl)
        self.tasks[task.id] = task
        return task

    def get(self, task_id: Any, era: str) -> PeerTask:
        self._purge()
        task = self.tasks.get(task_id) if isinstance(task_id, str) else None
        if task is None or task.era != era:
            raise TaskError(INVALID_PARAMS, "Failed to retrieve task: Task not found")
        task.refresh()
        return task

    # --- 2025-11-25 ----------------------------------------------------------------------------
    def legacy_create(self, tool: str, args: dict[str, Any], task_param: Any) -> dict[str, Any]:
        ttl = task_param.get("ttl") if isinstance(task_param, dict) else None
        return {"task": self.create(tool, args, "legacy", ttl).legacy()}

    def legacy_get(self, task_id: Any) -> dict[str, Any]:
        return self.get(task_id, "legacy").legacy()

    def legacy_list(self) -> dict[str, Any]:
        self._purge()
        out = []
        for t in self.tasks.values():
            if t.era == "legacy":
                t.refresh()
                out.append(t.legacy())
        return {"tasks": out}

    def legacy_cancel(self, task_id: Any) -> dict[str, Any]:
        task = self.get(task_id, "legacy")
        if task.status in TERMINAL:
            raise TaskError(INVALID_PARAMS, f"Cannot cancel task in terminal status: {task.status}")
        task._set("cancelled", "cancelled by the client (tasks/cancel)")
        task.input_requests = {}
        return task.legacy()

    async def legacy_result(self, task_id: Any,
                            elicit: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]] | None) -> dict[str, Any]:
        """Block until the task is terminal. When it needs input, send the request through
        `elicit` (the tasks/result request's own stream); `None` means no back-channel."""
        task = self.get(task_id, "legacy")
        while True:
            task.refresh()
            if task.status in TERMINAL:
                break
            if task.expired():
                raise TaskError(INVALID_PARAMS, "Failed to retrieve task: Task has expired")
            if task.status == "input_required" and not task.asking:
                key, req = next(iter(task.input_requests.items()))
                if elicit is None:
                    task.fail(INTERNAL_ERROR, "the task needs input but this connection cannot carry a server-to-client request")
                    continue
                task.asking = True
                try:
                    params = dict(req["params"])
                    params["_meta"] = {RELATED_TASK: {"taskId": task.id}}
                    response = await elicit(params)
                except Exception as e:  # the client answered with an error or went away
                    if task.status not in TERMINAL:
                        task.fail(INTERNAL_ERROR, f"elicitation failed: {e}")
                    continue
                finally:
                    task.asking = False
                task.answer(key, response)
                continue
            await asyncio.sleep(0.02)
        if task.status == "completed":
            return {**task.result, "_meta": {RELATED_TASK: {"taskId": task.id}}}
        if task.status == "failed":
            raise TaskError(task.error["code"], task.error["message"])
        raise TaskError(INTERNAL_ERROR, f"Task {task.id} was cancelled; it has no result")

    # --- 2026-07-28 extension ------------------------------------------------------------------
    def modern_create(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        task = self.create(tool, args, "modern")
        return {"resultType": "task", **{k: v for k, v in task.modern().items() if k not in ("result", "error", "inputRequests")}}

    def modern_get(self, task_id: Any) -> dict[str, Any]:
        return {"resultType": "complete", **self.get(task_id, "modern").modern()}

    def modern_update(self, task_id: Any, responses: Any) -> dict[str, Any]:
        task = self.get(task_id, "modern")
        for key, response in (responses or {}).items() if isinstance(responses, dict) else ():
            task.answer(key, response)  # keys not outstanding are ignored
        return {"resultType": "complete"}

    def modern_cancel(self, task_id: Any) -> dict[str, Any]:
        task = self.get(task_id, "modern")
        if task.status not in TERMINAL:
            task._set("cancelled", "cancelled by the client (tasks/cancel)")
            task.input_requests = {}
        return {"resultType": "complete"}


def declares_extension(params: Any) -> bool:
    """Whether a 2026-07-28 request's `_meta` client capabilities name the tasks extension."""
    meta = params.get("_meta") if isinstance(params, dict) else None
    caps = (meta or {}).get("io.modelcontextprotocol/clientCapabilities") or {}
    return isinstance(caps, dict) and isinstance(caps.get("extensions"), dict) and EXTENSION_ID in caps["extensions"]


def legacy_capability() -> dict[str, Any]:
    return {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}


# ==== glue for the mcp 2.x runner (MCPServer and FastMCP both run on it) =========================
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402
from mcp.shared.message import ServerMessageMetadata  # noqa: E402
import mcp_types  # noqa: E402
from mcp_types import PaginatedRequestParams, RequestParams  # noqa: E402

STORE = TaskStore()


class TaskIdParams(RequestParams):
    task_id: str


class UpdateTaskParams(RequestParams):
    task_id: str
    input_responses: dict[str, Any] = {}


def _raw(ctx: ServerRequestContext) -> dict[str, Any]:
    return dict(ctx.params or {})


def _require_extension(ctx: ServerRequestContext) -> None:
    if not declares_extension(_raw(ctx)):
        raise MCPError(MISSING_CAPABILITY, "Missing required client capability: the io.modelcontextprotocol/tasks extension",
                       MISSING_EXTENSION_DATA)


def _mcp(e: TaskError) -> MCPError:
    return MCPError(e.code, e.message, e.data)


async def _get(ctx: ServerRequestContext, params: TaskIdParams) -> dict[str, Any]:
    try:
        if ctx.protocol_version == LEGACY_VERSION:
            return STORE.legacy_get(params.task_id)
        _require_extension(ctx)
        return STORE.modern_get(params.task_id)
    except TaskError as e:
        raise _mcp(e) from None


async def _cancel(ctx: ServerRequestContext, params: TaskIdParams) -> dict[str, Any]:
    try:
        if ctx.protocol_version == LEGACY_VERSION:
            return STORE.legacy_cancel(params.task_id)
        _require_extension(ctx)
        return STORE.modern_cancel(params.task_id)
    except TaskError as e:
        raise _mcp(e) from None


async def _update(ctx: ServerRequestContext, params: UpdateTaskParams) -> dict[str, Any]:
    _require_extension(ctx)
    try:
        return STORE.modern_update(params.task_id, params.input_responses)
    except TaskError as e:
        raise _mcp(e) from None


async def _result(ctx: ServerRequestContext, params: TaskIdParams) -> dict[str, Any]:
    async def elicit(p: dict[str, Any]) -> dict[str, Any]:
        # sent on this tasks/result request's own stream, carrying the related-task _meta
        result = await ctx.session.send_request(
            mcp_types.ElicitRequest(params=mcp_types.ElicitRequestFormParams.model_validate(p)),
            mcp_types.ElicitResult,
            metadata=ServerMessageMetadata(related_request_id=ctx.request_id),
        )
        return result.model_dump(by_alias=True, mode="json", exclude_none=True)

    try:
        return await STORE.legacy_result(params.task_id, elicit if ctx.session.can_send_request else None)
    except TaskError as e:
        raise _mcp(e) from None


async def _list(ctx: ServerRequestContext, params: Any) -> dict[str, Any]:
    return STORE.legacy_list()


def method_bindings(binding_cls: Any) -> list[Any]:
    """tasks/* as extension methods; `binding_cls` is the SDK's or FastMCP's `MethodBinding`."""
    legacy = frozenset({LEGACY_VERSION})
    return [
        binding_cls("tasks/get", TaskIdParams, _get),
        binding_cls("tasks/cancel", TaskIdParams, _cancel),
        binding_cls("tasks/update", UpdateTaskParams, _update, protocol_versions=frozenset({"2026-07-28"})),
        binding_cls("tasks/result", TaskIdParams, _result, protocol_versions=legacy),
        binding_cls("tasks/list", PaginatedRequestParams, _list, protocol_versions=legacy),
    ]


def modern_tool_call(protocol_version: str, name: str, arguments: Any, raw_params: Any) -> dict[str, Any] | None:
    """2026-07-28 tools/call: the CreateTaskResult to answer with, or None to run the tool normally."""
    if protocol_version == LEGACY_VERSION or name not in TASK_TOOLS:
        return None
    if not declares_extension(raw_params):
        if TASK_TOOLS[name] == "required":
            raise MCPError(MISSING_CAPABILITY, "Missing required client capability: the io.modelcontextprotocol/tasks extension",
                           MISSING_EXTENSION_DATA)
        return None  # slow_task runs synchronously
    try:
        return STORE.modern_create(name, dict(arguments or {}))
    except TaskError as e:
        raise _mcp(e) from None


async def legacy_middleware(ctx: ServerRequestContext, call_next: CallNext) -> HandlerResult:
    """`Server.middleware`: the 2025-11-25 task surface the runner's per-version sieve would strip
    or reject: capabilities.tasks in the initialize result, execution.taskSupport in tools/list,
    and CreateTaskResult for a task-augmented tools/call (answered here, before the tool runs)."""
    if ctx.method == "tools/call" and ctx.protocol_version == LEGACY_VERSION:
        raw = _raw(ctx)
        name, task = raw.get("name"), raw.get("task")
        mode = TASK_TOOLS.get(name)
        if task is not None and mode is None:
            raise MCPError(METHOD_NOT_FOUND, f"Tool {name} does not support task augmentation (taskSupport: 'forbidden')")
        if task is not None:
            try:
                return STORE.legacy_create(name, dict(raw.get("arguments") or {}), task)
            except TaskError as e:
                raise _mcp(e) from None
        if mode == "required":
            raise MCPError(METHOD_NOT_FOUND, f"Tool {name} requires task augmentation (taskSupport: 'required')")
        return await call_next(ctx)
    result = await call_next(ctx)
    if ctx.method == "initialize" and isinstance(result, dict) and result.get("protocolVersion") == LEGACY_VERSION:
        result.setdefault("capabilities", {})["tasks"] = legacy_capability()
    elif ctx.method == "tools/list" and ctx.protocol_version == LEGACY_VERSION and isinstance(result, dict):
        for tool in result.get("tools", []):
            if tool.get("name") in TASK_TOOLS:
                tool["execution"] = {"taskSupport": TASK_TOOLS[tool["name"]]}
    return result
