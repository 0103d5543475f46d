// The studio's page behaviour: play segments on through a chapter with the book's pauses, the
// keyboard, a selection into the lexicon form, the lexicon's preview and save, one segment's fixes
// (its reading, another take, a flag, the take before), and the re-render.
"use strict";
const token = document.body.dataset.token;
const api = (path) => `${path}?token=${encodeURIComponent(token)}`;
const player = document.getElementById("player");
const segments = Array.from(document.querySelectorAll(".segment"));
let current = -1;
let pauseTimer = null;

function highlight(index) {
  segments.forEach((li, i) => li.classList.toggle("current", i === index));
  if (index >= 0) segments[index].scrollIntoView({ block: "center", behavior: "smooth" });
}

function play(index) {
  clearTimeout(pauseTimer);
  // Queued segments have no audio yet: play on from the next rendered one.
  while (index < segments.length && !segments[index].dataset.audio) index++;
  if (index < 0 || index >= segments.length) { current = -1; highlight(-1); return; }
  current = index;
  highlight(index);
  player.src = segments[index].dataset.audio;
  player.play();
}

if (player) {
  player.addEventListener("ended", () => {
    if (current < 0) return;  // a take before, played alone
    const pause = parseFloat(segments[current].dataset.pause || "0");
    pauseTimer = setTimeout(() => play(current + 1), pause * 1000);
  });
  segments.forEach((li, i) => li.querySelector(".play").addEventListener("click", () => play(i)));
  document.addEventListener("keydown", (event) => {
    if (event.target.closest("input, textarea")) return;
    if (event.key === " ") {
      event.preventDefault();
      if (current < 0) play(0); else if (player.paused) player.play(); else player.pause();
    } else if (event.key === "ArrowRight") { play(current + 1); }
    else if (event.key === "ArrowLeft") { play(Math.max(current - 1, 0)); }
  });
}

// A word selected in the text becomes the lexicon entry's key.
document.addEventListener("mouseup", () => {
  const chosen = window.getSelection().toString().trim();
  if (chosen && !chosen.includes("\n")) document.getElementById("lex-key").value = chosen;
});

const message = document.getElementById("lex-message");
const changes = document.getElementById("lex-changes");

async function lexicon(path) {
  const entry = {
    key: document.getElementById("lex-key").value,
    say: document.getElementById("lex-say").value,
    ignore_case: document.getElementById("lex-case").checked,
    phonemes: document.getElementById("lex-phonemes").value,
  };
  const response = await fetch(api(path), { method: "POST", body: JSON.stringify(entry) });
  const answer = await response.json();
  changes.replaceChildren();
  message.classList.toggle("error", !response.ok);
  if (!response.ok) { message.textContent = answer.error; return; }
  const about = answer.exact ? "" : "about ";
  message.textContent = `${about}${answer.count} segments would change` + (answer.note ? `; ${answer.note}` : "");
  message.dataset.count = answer.count;
  for (const change of answer.changes) {
    const li = document.createElement("li");
    li.dataset.id = change.segment_id;
    li.textContent = `ch. ${change.chapter}: ${change.text} → says: ${change.spoken}`;
    changes.append(li);
  }
}

document.getElementById("lex-preview").addEventListener("click", () => lexicon("/api/lexicon/preview"));
document.getElementById("lex-save").addEventListener("click", () => lexicon("/api/lexicon"));

// One segment's own controls, under its "fix".
async function segmentAction(li, action, body) {
  const shown = li.querySelector(".fix-message");
  const response = await fetch(api(`/api/segment/${li.dataset.id}/${action}`), {
    method: "POST", body: JSON.stringify(body || {}),
  });
  const answer = await response.json();
  shown.classList.toggle("error", !response.ok);
  shown.textContent = response.ok ? answer.message : answer.error;
}

segments.forEach((li) => {
  const on = (selector, handler) => {
    const button = li.querySelector(selector);
    if (button) button.addEventListener("click", handler);
  };
  on(".say-save", () => segmentAction(li, "say", { text: li.querySelector(".say").value }));
  on(".take", () => segmentAction(li, "take"));
  on(".flag", () => segmentAction(li, "flag", { note: li.querySelector(".note").value }));
  on(".unflag", () => segmentAction(li, "unflag"));
  on(".keep", () => segmentAction(li, "keep"));
  on(".revert", () => segmentAction(li, "revert"));
  on(".play-previous", () => {
    clearTimeout(pauseTimer);
    current = -1;
    player.src = li.querySelector(".compare").dataset.previous;
    player.play();
  });
});

const bar = document.getElementById("render-bar");
const state = document.getElementById("render-state");
const log = document.getElementById("render-log");

function show(progress) {
  bar.value = progress.percent;
  state.textContent = `${progress.state}: ${progress.completed}/${progress.total} (${progress.percent}%)`;
  state.dataset.state = progress.state;
  log.textContent = progress.log.join("\n");
}

const start = document.getElementById("render-start");

async function follow() {
  const progress = await (await fetch(api("/api/progress"))).json();
  show(progress);
  // A run started elsewhere (it holds the book's lock) is followed; the button would not start another.
  start.disabled = progress.state === "running elsewhere";
  if (progress.state.startsWith("running")) setTimeout(follow, 1000);
}

start.addEventListener("click", async () => {
  show(await (await fetch(api("/api/render"), { method: "POST" })).json());
  follow();
});
follow();
