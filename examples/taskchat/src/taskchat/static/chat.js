// The chat page: plain JavaScript against the JSON API, no build step. Each message (or answer
// to a confirmation) goes to POST /api/v1/chat/stream; the reply is read from the event stream
// (sse.js) as it arrives: text into the assistant's bubble, a line per tool call as it starts
// and ends. An empty conversation shows the welcome: what the assistant does, and examples.
import { readEvents } from "/static/sse.js";

const STORAGE_KEY = "taskchat.conversation";
const PLACEHOLDER = "Try: add a task to buy milk due tomorrow with high priority";
const ANSWERED = { approve: "Approved", deny: "Declined" };
const $ = (selector) => document.querySelector(selector);

const state = {
  conversationId: localStorage.getItem(STORAGE_KEY),
  answers: {},   // call_id -> "approve" | "deny", for the pending confirmations
  pending: [],   // the calls waiting for an answer
  busy: false,
  reading: null, // the AbortController of the stream being read
};

// -- the conversation's lines ------------------------------------------------------------------

function addEntry(className, text) {
  const item = document.createElement("li");
  item.className = `msg ${className}`;
  item.textContent = text;
  $("#messages").append(item);
  item.scrollIntoView({ block: "end" });
  return item;
}

// A tool call's line: done (✓), failed (✗), or declined by the user — not a failure: it did
// not run because the user said no.
function showToolResult(line, { name, success, message, declined }) {
  line.dataset.tool = name;
  if (declined) {
    line.className = "msg tool declined";
    line.textContent = `${name}: declined, not run`;
    line.title = message;
  } else {
    line.className = `msg tool ${success ? "ok" : "failed"}`;
    line.textContent = `${name}: ${message}`;
  }
}

function addConfirmation(call) {
  const card = document.createElement("li");
  card.className = "confirm";
  card.dataset.callId = call.call_id;
  const title = document.createElement("div");
  title.textContent = `Confirm ${call.name}?`;
  const args = document.createElement("code");
  args.textContent = JSON.stringify(call.arguments);
  const actions = document.createElement("div");
  actions.className = "actions";
  for (const [answer, label] of [["approve", "Confirm"], ["deny", "Deny"]]) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = answer;
    button.textContent = label;
    button.addEventListener("click", () => answerCall(call.call_id, answer, card));
    actions.append(button);
  }
  card.append(title, args, actions);
  $("#messages").append(card);
  card.scrollIntoView({ block: "end" });
}

function answerCall(callId, answer, card) {
  if (state.busy || callId in state.answers) return;
  state.answers[callId] = answer;
  // the card says which answer it got, in place of its buttons
  card.classList.add("answered", answer === "approve" ? "approved" : "declined");
  const given = document.createElement("div");
  given.className = "answer";
  given.textContent = ANSWERED[answer];
  card.querySelector(".actions").replaceWith(given);
  if (state.pending.every((call) => call.call_id in state.answers)) {
    send({ message: "", confirmations: { ...state.answers } });
  }
}

// -- the composer --------------------------------------------------------------------------------

// A message can go when no reply is streaming in and no confirmation waits: the answer to a
// confirmation is what goes next, so Send (and Enter) wait for it.
function canSend() {
  return !state.busy && state.pending.length === 0;
}

function updateComposer() {
  const waiting = state.pending.length > 0;
  $("#send").disabled = !canSend();
  $("#message-input").disabled = waiting;
  $("#message-input").placeholder = waiting ? "Answer the confirmation above first." : PLACEHOLDER;
}

function setPending(calls) {
  state.pending = calls;
  state.answers = {};
  for (const call of calls) addConfirmation(call);
  updateComposer();
}

function setBusy(busy) {
  state.busy = busy;
  updateComposer();
}

function sendMessage(message) {
  const input = $("#message-input");
  if (input.value.trim() === message) input.value = "";
  send({ message, entry: addEntry("user", message) });
}

// The welcome shows while the conversation has nothing in it.
function updateWelcome() {
  $("#welcome").hidden = $("#messages").childElementCount > 0;
}

// -- one request ---------------------------------------------------------------------------------

// What one request shows: a bubble for the model's words (last), tool lines above it.
class ReplyView {
  constructor() {
    this.bubble = addEntry("assistant pending", "…");
    this.turn = null;
    this.text = "";
    this.tools = new Map(); // call_id -> its line
  }

  text_delta({ text, turn }) {
    if (turn !== this.turn) { // a later turn: the bubble shows what the model says now
      this.turn = turn;
      this.text = "";
    }
    this.text += text;
    this.bubble.className = "msg assistant streaming";
    this.bubble.textContent = this.text;
    this.bubble.scrollIntoView({ block: "end" });
  }

  toolLine(callId, name) {
    let line = this.tools.get(callId);
    if (!line) {
      line = document.createElement("li");
      line.dataset.tool = name;
      line.dataset.callId = callId;
      this.bubble.before(line);
      this.tools.set(callId, line);
    }
    return line;
  }

  tool_call_started({ call_id, name }) {
    const line = this.toolLine(call_id, name);
    line.className = "msg tool running";
    line.textContent = `${name} …`;
  }

  tool_call_finished(result) {
    // a call answered in this request: its "waiting" line from the asking request goes
    for (const old of document.querySelectorAll(".msg.tool.waiting")) {
      if (old.dataset.callId === result.call_id) old.remove();
    }
    showToolResult(this.toolLine(result.call_id, result.name), result);
  }

  confirmation_required({ call_id, name }) {
    const line = this.toolLine(call_id, name);
    line.className = "msg tool waiting";
    line.textContent = `${name}: waits for your confirmation`;
  }

  // The final event: exactly the body of POST /api/v1/chat.
  reply(data) {
    keepConversation(data.conversation_id);
    for (const result of data.tool_results) {
      if (!this.tools.has(result.call_id)) this.tool_call_finished(result);
    }
    if (data.reply) {
      this.bubble.className = "msg assistant";
      this.bubble.textContent = data.reply;
    } else {
      this.bubble.remove();
    }
    setPending(data.pending_confirmations);
  }

  fail(error) {
    this.bubble.remove();
    addEntry("error", error.message);
    if (error.pending_confirmations) setPending(error.pending_confirmations);
  }

  // The request never reached the server: nothing was sent, so a message goes back to the
  // input, and Retry sends the same request again.
  unreachable(fields) {
    this.bubble.remove();
    const what = fields.confirmations ? "your answer was" : "your message was";
    if (fields.entry) {
      fields.entry.remove();
      if (!$("#message-input").value) $("#message-input").value = fields.message;
    }
    const item = addEntry(
      "error unreachable", `Could not reach the server, so ${what} not sent. Is taskchat running? `,
    );
    const retry = document.createElement("button");
    retry.type = "button";
    retry.className = "retry";
    retry.textContent = "Retry";
    retry.addEventListener("click", () => {
      item.remove();
      if (fields.entry) sendMessage(fields.message);
      else send(fields);
    });
    item.append(retry);
  }
}

// The conversation a reload comes back to: kept as soon as the server names it, so that a
// reload before the reply's last event still finds what the server saved.
function keepConversation(id) {
  state.conversationId = id;
  localStorage.setItem(STORAGE_KEY, id);
}

async function send(fields) {
  for (const stale of document.querySelectorAll(".msg.unreachable")) stale.remove();
  setBusy(true);
  const view = new ReplyView();
  const reading = new AbortController();
  state.reading = reading;
  let response = null;
  try {
    response = await fetch("/api/v1/chat/stream", {
      signal: reading.signal,
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
      body: JSON.stringify({
        conversation_id: state.conversationId,
        message: fields.message,
        confirmations: fields.confirmations || {},
      }),
    });
    if (!response.ok) { // refused before the stream started: a JSON error
      const data = await response.json().catch(() => ({}));
      view.fail(data.error || { message: `HTTP ${response.status}` });
      return;
    }
    let ended = false;
    for await (const { name, data } of readEvents(response)) {
      switch (name) {
        case "chat_started": keepConversation(data.conversation_id); break;
        case "text_delta": view.text_delta(data); break;
        case "tool_call_started": view.tool_call_started(data); break;
        case "tool_call_finished": view.tool_call_finished(data); break;
        case "confirmation_required": view.confirmation_required(data); break;
        case "reply": view.reply(data); ended = true; break;
        case "error": view.fail(data.error); ended = true; break;
        default: break; // run_started, turn_finished, argument pieces: nothing to show
      }
    }
    if (!ended) view.fail({ message: "The connection closed before the reply was complete." });
  } catch (error) {
    if (error.name === "AbortError") view.bubble.remove(); // we left: the server stops the run
    else if (response === null) view.unreachable(fields);
    else view.fail({ message: "The connection was lost before the reply was complete." });
  } finally {
    if (state.reading === reading) state.reading = null;
    setBusy(false);
    refreshTasks();
  }
}

// -- the task panel and the conversation ------------------------------------------------------

async function api(method, path) {
  const response = await fetch(path, { method });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = new Error(data.error ? data.error.message : `HTTP ${response.status}`);
    error.status = response.status;
    throw error;
  }
  return data;
}

async function refreshTasks() {
  try {
    const data = await api("GET", "/api/v1/tasks");
    const list = $("#task-list");
    list.replaceChildren();
    if (data.tasks.length === 0) {
      const empty = document.createElement("li");
      empty.className = "empty";
      empty.textContent = "No tasks yet.";
      list.append(empty);
    }
    for (const task of data.tasks) {
      const item = document.createElement("li");
      item.className = task.status;
      item.dataset.taskId = task.id;
      const title = document.createElement("div");
      title.className = "title";
      title.textContent = `#${task.id} ${task.title}`;
      const meta = document.createElement("div");
      meta.className = "meta";
      const due = task.eta ? ` · due ${task.eta.slice(0, 10)}` : "";
      const tags = task.tags.length ? ` · #${task.tags.join(" #")}` : "";
      meta.textContent = `${task.status.replace("_", " ")} · ${task.priority}${due}${tags}`;
      item.append(title, meta);
      list.append(item);
    }
  } catch (error) {
    // the task panel is a convenience; the chat shows real errors
  }
}

async function restore() {
  if (!state.conversationId) return;
  try {
    const data = await api("GET", `/api/v1/conversations/${state.conversationId}`);
    for (const entry of data.messages) {
      if (entry.role === "tool") {
        showToolResult(addEntry("tool", ""), { ...entry, message: entry.text });
      } else {
        addEntry(entry.role, entry.text);
      }
    }
    setPending(data.pending_confirmations);
  } catch (error) {
    if (error.status === 404 || error.status === 422) {
      state.conversationId = null;
      localStorage.removeItem(STORAGE_KEY);
    } else {
      addEntry("error", error.message);
    }
  }
}

function startOver() {
  if (state.reading) state.reading.abort();
  state.conversationId = null;
  localStorage.removeItem(STORAGE_KEY);
  $("#messages").replaceChildren();
  setPending([]);
  $("#message-input").focus();
}

function start() {
  $("#composer").addEventListener("submit", (event) => {
    event.preventDefault();
    const message = $("#message-input").value.trim();
    if (message && canSend()) sendMessage(message);
  });
  $("#message-input").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      $("#composer").requestSubmit();
    }
  });
  for (const example of document.querySelectorAll("#welcome .example")) {
    example.addEventListener("click", () => {
      $("#message-input").value = example.textContent;
      $("#message-input").focus();
    });
  }
  $("#new-conversation").addEventListener("click", startOver);
  new MutationObserver(updateWelcome).observe($("#messages"), { childList: true });
  restore().then(() => {
    updateWelcome();
    refreshTasks();
  });
}

start(); // a module runs once the page is parsed
