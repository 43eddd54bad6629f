// The chat page: plain JavaScript against the JSON API, no build step.
"use strict";

const STORAGE_KEY = "taskchat.conversation";
const $ = (selector) => document.querySelector(selector);

const state = {
  conversationId: localStorage.getItem(STORAGE_KEY),
  answers: {},   // call_id -> "approve" | "deny", for the pending confirmations
  pending: [],   // the calls waiting for an answer
  busy: false,
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

async function send(fields) {
  setBusy(true);
  const thinking = addEntry("assistant pending", "…");
  try {
    const data = await api("POST", "/api/v1/chat", {
      conversation_id: state.conversationId,
      message: fields.message,
      confirmations: fields.confirmations || {},
    });
    thinking.remove();
    state.conversationId = data.conversation_id;
    localStorage.setItem(STORAGE_KEY, data.conversation_id);
    for (const result of data.tool_results) addToolResult(result);
    if (data.reply) addEntry("assistant", data.reply);
    setPending(data.pending_confirmations);
  } catch (error) {
    thinking.remove();
    addEntry("error", error.message);
    if (error.data && error.data.error && error.data.error.pending_confirmations) {
      setPending(error.data.error.pending_confirmations);
    }
  } finally {
    setBusy(false);
    refreshTasks();
  }
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
