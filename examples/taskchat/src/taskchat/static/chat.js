// The chat page: plain JavaScript against the JSON API, no build step. Each message (or answer
// to a confirmation) goes to POST /api/v1/chat/stream; the reply is read from the event stream
// as it arrives: text into the assistant's bubble, a line per tool call as it starts and ends.
"use strict";

const STORAGE_KEY = "taskchat.conversation";
const $ = (selector) => document.querySelector(selector);

const state = {
  conversationId: localStorage.getItem(STORAGE_KEY),
  answers: {},   // call_id -> "approve" | "deny", for the pending confirmations
  pending: [],   // the calls waiting for an answer
  busy: false,
  reading: null, // the AbortController of the stream being read
};

function addEntry(className, text) {
  const item = document.createElement("li");
  item.className = `msg ${className}`;
  item.textContent = text;
  $("#messages").append(item);
  item.scrollIntoView({ block: "end" });
  return item;
}

function addToolResult(result) {
  const item = addEntry(`tool ${result.success ? "ok" : "failed"}`, `${result.name}: ${result.message}`);
  item.dataset.tool = result.name;
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
  if (state.busy) return;
  state.answers[callId] = answer;
  card.classList.add("answered");
  for (const button of card.querySelectorAll("button")) button.disabled = true;
  if (state.pending.every((call) => call.call_id in state.answers)) {
    send({ message: "", confirmations: state.answers });
  }
}

function setPending(calls) {
  state.pending = calls;
  state.answers = {};
  for (const call of calls) addConfirmation(call);
  $("#message-input").disabled = calls.length > 0;
  $("#message-input").placeholder = calls.length > 0
    ? "Answer the confirmation above first."
    : "Try: add a task to buy milk due tomorrow with high priority";
}

function setBusy(busy) {
  state.busy = busy;
  $("#send").disabled = busy;
}

async function api(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: body ? { "Content-Type": "application/json" } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const message = data.error ? data.error.message : `HTTP ${response.status}`;
    const error = new Error(message);
    error.status = response.status;
    error.data = data;
    throw error;
  }
  return data;
}

// -- the stream ------------------------------------------------------------------------------

// The server-sent events of a fetch response, as {name, data} with data parsed from JSON.
async function* readEvents(response) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const event = parseEvent(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
      if (event) yield event;
    }
  }
}

function parseEvent(block) {
  let name = "message";
  const data = [];
  for (const line of block.split("\n")) {
    if (!line || line.startsWith(":")) continue; // a comment: the server's keep-alive
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") name = value;
    else if (field === "data") data.push(value);
  }
  return data.length ? { name, data: JSON.parse(data.join("\n")) } : null;
}

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

  tool_call_finished({ call_id, name, success, message }) {
    // a call confirmed in this request: its "waiting" line from the asking request goes
    for (const old of document.querySelectorAll(".msg.tool.waiting")) {
      if (old.dataset.callId === call_id) old.remove();
    }
    const line = this.toolLine(call_id, name);
    line.className = `msg tool ${success ? "ok" : "failed"}`;
    line.textContent = `${name}: ${message}`;
  }

  confirmation_required({ call_id, name }) {
    const line = this.toolLine(call_id, name);
    line.className = "msg tool waiting";
    line.textContent = `${name}: waits for your confirmation`;
  }

  // The final event: exactly the body of POST /api/v1/chat.
  reply(data) {
    state.conversationId = data.conversation_id;
    localStorage.setItem(STORAGE_KEY, data.conversation_id);
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
}

async function send(fields) {
  setBusy(true);
  const view = new ReplyView();
  const reading = new AbortController();
  state.reading = reading;
  try {
    const response = await fetch("/api/v1/chat/stream", {
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
        case "chat_started": state.conversationId = data.conversation_id; break;
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
    else view.fail({ message: `The server could not be reached: ${error.message}` });
  } finally {
    if (state.reading === reading) state.reading = null;
    setBusy(false);
    refreshTasks();
  }
}

// -- the task panel and the conversation ------------------------------------------------------

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
      if (entry.role === "tool") addToolResult({ name: entry.name, success: entry.success, message: entry.text });
      else addEntry(entry.role, entry.text);
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

document.addEventListener("DOMContentLoaded", () => {
  $("#composer").addEventListener("submit", (event) => {
    event.preventDefault();
    const input = $("#message-input");
    const message = input.value.trim();
    if (!message || state.busy || state.pending.length) return;
    input.value = "";
    addEntry("user", message);
    send({ message });
  });
  $("#message-input").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      $("#composer").requestSubmit();
    }
  });
  $("#new-conversation").addEventListener("click", startOver);
  restore().then(refreshTasks);
});
