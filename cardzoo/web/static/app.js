// The cardzoo page: pick a game and who sits where, then watch (Next move, Play to the end) or
// play your seat (your legal moves are buttons); the table is a PNG drawn by the server.
"use strict";

const $ = (id) => document.getElementById(id);
let games = [];
let session = null; // the game shown, as the server describes it
let dealSeed = ""; // its seed, exact (a JSON number read by JavaScript is rounded above 2**53)

async function call(method, url, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(url, options);
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

function showError(error) {
  $("error").textContent = error ? String(error.message || error) : "";
  $("error").hidden = !error;
}

function option(value, text) {
  const element = document.createElement("option");
  element.value = value;
  element.textContent = text;
  return element;
}

// --- setting up a game ---------------------------------------------------------------------

function chosenGame() {
  return games.find((game) => game.name === $("game").value);
}

function fillPlayers() {
  const game = chosenGame();
  $("game-description").textContent = game.description;
  $("players").replaceChildren();
  for (let n = game.min_players; n <= game.max_players; n++) {
    $("players").append(option(n, n));
  }
  $("players").value = game.default_players;
  fillSeats();
}

function fillSeats() {
  const game = chosenGame();
  const players = Number($("players").value);
  $("seats").replaceChildren();
  for (let seat = 0; seat < players; seat++) {
    const label = document.createElement("label");
    label.textContent = `player_${seat} `;
    const select = document.createElement("select");
    select.id = `seat-${seat}`;
    select.append(option("you", "you"));
    for (const agent of game.agents) select.append(option(agent, agent));
    select.value = seat === 0 ? "you" : game.best_agent;
    label.append(select);
    $("seats").append(label);
  }
}

async function startGame() {
  showError(null);
  const players = Number($("players").value);
  const lineup = [];
  for (let seat = 0; seat < players; seat++) lineup.push($(`seat-${seat}`).value);
  const request = { game: $("game").value, lineup };
  const seed = $("seed").value.trim();
  if (seed !== "") {
    if (!/^\d+$/.test(seed)) {
      showError(`The deal seed must be a whole number (digits only), or empty: got "${seed}".`);
      return;
    }
    request.seed = seed; // sent as the digits typed: the server reads them exactly
  }
  try {
    const described = await call("POST", "/api/sessions", request);
    dealSeed = seed !== "" ? BigInt(seed).toString() : String(described.seed);
    show(described);
  } catch (error) {
    showError(error);
  }
}

// --- the game ------------------------------------------------------------------------------

function show(described) {
  session = described;
  $("table").hidden = false;
  $("title").textContent = `${session.game} (deal seed ${dealSeed})`;
  showViews();
  $("picture").src =
    `/api/sessions/${session.id}/picture.png?view=${$("view").value}&step=${session.steps}`;
  $("status").textContent = statusText();
  const watching = session.human_seat === null;
  $("controls").hidden = session.over || session.your_turn || !watching;
  showMoves();
  $("result").hidden = !session.over;
  $("result").textContent = session.over ? session.result.text : "";
  document.body.dataset.steps = session.steps; // lets a test wait for the page to catch up
}

function statusText() {
  if (session.over) return "Game over.";
  const last = session.last_move ? ` Last move: ${session.last_move}.` : "";
  if (session.your_turn) return `Your turn (player_${session.human_seat}).${last}`;
  return `player_${session.to_move} to move.${last}`;
}

function showViews() {
  const chosen = $("view").value;
  $("view").replaceChildren();
  for (const view of session.views) {
    $("view").append(option(view, view === "all" ? "the whole table" : `player_${view}'s eyes`));
  }
  $("view").value = session.views.includes(chosen) ? chosen : session.views[0];
}

function showMoves() {
  $("moves").replaceChildren();
  for (const move of session.legal_moves) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "move";
    button.dataset.action = move.action;
    button.textContent = move.name;
    button.addEventListener("click", () => play(move.action));
    $("moves").append(button);
  }
}

async function play(action) {
  showError(null);
  try {
    show(await call("POST", `/api/sessions/${session.id}/act`, { action }));
  } catch (error) {
    showError(error);
  }
}

async function step(moves) {
  showError(null);
  try {
    show(await call("POST", `/api/sessions/${session.id}/step`, { moves }));
  } catch (error) {
    showError(error);
  }
}

// --- recorded matches ----------------------------------------------------------------------

async function listReplays() {
  const { replays } = await call("GET", "/api/replays");
  $("replays").hidden = false;
  $("replay-list").replaceChildren();
  for (const name of replays) {
    const item = document.createElement("li");
    const link = document.createElement("a");
    link.href = "#";
    link.textContent = name;
    link.addEventListener("click", (event) => {
      event.preventDefault();
      $("replay").src = `/api/replay?name=${encodeURIComponent(name)}`;
      $("replay").hidden = false;
    });
    item.append(link);
    $("replay-list").append(item);
  }
}

async function load() {
  try {
    const catalogue = await call("GET", "/api/games");
    games = catalogue.games;
    for (const game of games) $("game").append(option(game.name, game.name));
    $("game").addEventListener("change", fillPlayers);
    $("players").addEventListener("change", fillSeats);
    $("start").addEventListener("click", startGame);
    $("next").addEventListener("click", () => step(1));
    $("finish").addEventListener("click", () => step(10000));
    $("view").addEventListener("change", () => show(session));
    fillPlayers();
    if (catalogue.replays) await listReplays();
    document.body.dataset.ready = "yes";
  } catch (error) {
    showError(error);
  }
}

load();
