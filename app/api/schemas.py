"""The task API's bodies: MobileTaskRequest / MobileTaskResult / UIAction / SemanticUITree,
with what a supervised desk adds (task states while not done, the decision a task waits for, its
output, where its report is).

Requests forbid unknown fields, so a misspelt field is a 422 naming it rather than silently
ignored. Responses never carry the model's API key: nothing here holds one.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

TaskStatus = Literal["queued", "running", "waiting_for_person", "success", "failed", "timeout", "stopped"]
DONE_STATUSES = ("success", "failed", "timeout", "stopped")
TASK_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TaskParameters(_Request):
    """How the task runs. Everything is optional; the desk's settings fill the rest."""

    mode: Literal["auto", "step"] = Field("auto", description="auto: runs on its own and asks a person only for "
                                          "sensitive actions; step: every action waits for a decision")
    confirm_sensitive: bool = Field(True, description="in auto mode, sensitive actions (pay, delete, send…) wait "
                                    "for a person's decision; false lets the task take them without asking — "
                                    "only where the desk's setting api.programs_may_approve_sensitive is on "
                                    "(else the task is refused with 403)")
    review_timeout_seconds: float | None = Field(None, gt=0, le=86_400, description="a decision nobody gives "
                                                 "ends the task failed after this long (default: the desk's "
                                                 "setting, 10 minutes)")
    preset: str | None = Field(None, max_length=64, description="a provider preset (OpenAI, Ollama, llama.cpp, …)")
    base_url: str | None = Field(None, max_length=2048, description="an OpenAI-compatible endpoint for this task")
    model: str | None = Field(None, max_length=256, description="the model for this task")
    api_key: SecretStr | None = Field(None, min_length=1, max_length=1024, description="write-only: the task's "
                                      "own key for its model server (base_url or preset); used alone, never "
                                      "shown in results. Without it the desk's key goes only to the server it "
                                      "was stored for (and the ones the person allowed)")
    max_tokens: int | None = Field(None, ge=0, le=1_000_000_000, description="end the task after this many "
                                   "tokens of model calls (0: no cap)")
    max_cost_usd: float | None = Field(None, ge=0, le=100_000, description="end the task after it cost this "
                                       "much, where the model's price is known (0: no cap)")
    use_skills: bool | None = Field(None, description="replay a saved skill that fits the request before asking "
                                    "the model (default: the desk's setting learning.use_skills, on)")
    use_map: bool | None = Field(None, description="tell the model where the phone is on the map of screens "
                                 "earlier runs visited and let it go to a known screen by the known way "
                                 "(default: the desk's setting learning.use_map, on)")

    @field_validator("base_url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        if value is not None and not value.strip().startswith(("http://", "https://")):
            raise ValueError("the base URL must start with http:// or https://")
        return value


class OutputRequest(_Request):
    """A question answered from the final screen, returned in the result (text, or JSON data matching
    `json_schema`)."""

    question: str = Field(min_length=1, max_length=2000)
    json_schema: dict[str, Any] | None = Field(None, description="the answer's JSON schema")


class MobileTaskRequest(_Request):
    """A task for the desk: what to do in plain words, on which phone, and how."""

    task_id: str | None = Field(None, pattern=TASK_ID_PATTERN, description="your id for the task (letters, "
                                "digits, . _ -); a new one when absent")
    device_id: str | None = Field(None, max_length=300, description="the phone: its device_id, or a serial that "
                                  "names one phone; absent: the first ready phone")
    ai_prompt: str = Field(min_length=1, max_length=8000, description="what to do, in plain words")
    max_steps: int | None = Field(None, ge=1, le=500)
    timeout_seconds: float | None = Field(None, gt=0, le=86_400, description="the agent's own time (time waiting "
                                          "for a person does not count)")
    parameters: TaskParameters = Field(default_factory=TaskParameters)
    output: OutputRequest | None = None

    @field_validator("ai_prompt")
    @classmethod
    def _said_something(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("ai_prompt is blank: say what the agent should do")
        return value


class ActionBody(_Request):
    """An action as the model writes it: a function of the action list and its arguments."""

    function: str = Field(min_length=1)
    arguments: dict[str, Any] = Field(default_factory=dict)
    status: Literal["CONTINUE", "FINISH", "FAIL"] = "CONTINUE"


class DecisionRequest(_Request):
    """A program's answer to what a task waits for, naming it by the id the task showed (`waiting_for`)."""

    decision: Literal["approve", "edit", "reject", "override", "stop", "answer"]
    proposal_id: str | None = Field(None, max_length=200, description="the id of the proposal or question decided "
                                    "(waiting_for.proposal_id); required for every decision but stop. A "
                                    "decision for anything else is refused with 409 and does nothing")
    action: ActionBody | None = Field(None, description="edit / override: the action to take instead")
    feedback: str | None = Field(None, max_length=4000, description="reject: why, told to the model")
    answer: str | None = Field(None, max_length=4000, description="answer: the reply to the agent's question")


# ---------------------------------------------------------------------------- answers


class ActionResult(BaseModel):
    action_id: str
    success: bool
    error: str | None = None
    execution_time_ms: int = 0


class UIAction(BaseModel):
    """One action the task took, with how it went."""

    action_id: str
    step: int
    action_type: str                     # the function: click_control, type_text, launch_app, …
    element_id: int | None = None        # the control's number on that step's screen
    text: str | None = None
    arguments: dict[str, Any] = Field(default_factory=dict)
    description: str = ""                # the action in words
    thought: str = ""
    decision: str | None = None          # approve / edit / override / auto (who let it happen)
    result: ActionResult | None = None


class PendingDecision(BaseModel):
    """What a task waiting for a person waits for."""

    kind: Literal["review", "question"]
    proposal_id: str = ""                                      # what every decision names (DecisionRequest)
    step: int | None = None
    action: dict[str, Any] | None = None
    description: str = ""
    thought: str = ""
    sensitive_reason: str = ""
    question: str = ""
    decisions: list[str] = Field(default_factory=list)       # what may be posted to /decision
    needs_person: bool = False       # a sensitive step programs may not approve (api.programs_may_approve_sensitive)


class MobileTaskResult(BaseModel):
    """A task's result; while the task is not done, `status` says where it is."""

    task_id: str
    device_id: str
    ai_prompt: str
    status: TaskStatus
    steps_taken: int = 0
    actions_executed: list[UIAction] = Field(default_factory=list)
    execution_time_ms: int = 0
    error: str | None = None
    completion_reason: str | None = None
    waiting_for: PendingDecision | None = None
    output: Any = None
    output_error: str | None = None
    created_at: float
    finished_at: float | None = None
    tokens: dict[str, int] = Field(default_factory=dict)
    tokens_estimated: bool = Field(False, description="some of the tokens are Agent Desk's estimate: the model "
                                   "server reported no usage")
    cost_usd: float = 0.0
    report_url: str | None = Field(None, description="the HTML report on this API, once the task has ended "
                                  "(GET /v1/tasks/{id}/report, with the token)")
    run_dir: str | None = None


class TaskAccepted(BaseModel):
    task_id: str
    status: TaskStatus
    position: int = Field(description="tasks ahead of this one on its phone")
    links: dict[str, str]


class TaskList(BaseModel):
    tasks: list[MobileTaskResult]


class DeviceInfo(BaseModel):
    device_id: str
    serial: str
    server: str
    state: str
    model: str
    ready: bool
    virtual: bool = False
    busy: bool = False


class DeviceList(BaseModel):
    devices: list[DeviceInfo]
    unreachable: dict[str, str] = Field(default_factory=dict, description="ADB servers that did not answer, "
                                        "and why")


class Bounds(BaseModel):
    left: int
    top: int
    right: int
    bottom: int


class ElementState(BaseModel):
    clickable: bool
    long_clickable: bool
    scrollable: bool
    checkable: bool
    checked: bool
    enabled: bool
    focused: bool
    selected: bool
    password: bool


class UIElement(BaseModel):
    element_id: int
    text: str
    content_desc: str
    name: str
    type: str
    class_name: str
    resource_id: str
    package: str
    bounds: Bounds
    state: ElementState
    locator: str


class SemanticUITree(BaseModel):
    """The controls of one screen, with how old the reading is."""

    screen_id: str
    device_id: str
    app_name: str
    activity: str
    screen_name: str
    elements: list[UIElement]
    age_seconds: float
    from_cache: bool


class ErrorBody(BaseModel):
    error: str
    field: str | None = None
    details: list[dict[str, Any]] = Field(default_factory=list)
