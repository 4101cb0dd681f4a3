// The benchmark picker: a text field that searches the server's benchmarks as one types
// (/api/v4/benchmarks), with a list of matches to choose from by mouse or keyboard (arrows,
// Enter, Escape). Whatever is typed is also a URI the Start button takes as it is.

const DEBOUNCE_MS = 120;
const SHOWN = 50;

// `search(query, limit)` answers the API's {benchmarks, total, truncated}; `track(promise)`
// marks the page busy while it runs and shows its error; `onEnter()` runs when Enter is
// pressed with no match highlighted.
export function benchmarkPicker(input, list, { search, track, onEnter }) {
  let timer = null;
  let active = -1;
  let asked = 0; // the latest search: answers of older ones are dropped

  const options = () => [...list.querySelectorAll('[role="option"]')];

  function close() {
    list.hidden = true;
    input.setAttribute("aria-expanded", "false");
    input.removeAttribute("aria-activedescendant");
    active = -1;
  }

  function highlight(k) {
    const all = options();
    active = all.length ? (k + all.length) % all.length : -1;
    all.forEach((o, i) => o.setAttribute("aria-selected", i === active ? "true" : "false"));
    if (active >= 0) {
      input.setAttribute("aria-activedescendant", all[active].id);
      all[active].scrollIntoView({ block: "nearest" });
    }
  }

  function choose(uri) {
    input.value = uri;
    close();
    input.dispatchEvent(new Event("change"));
  }

  function show(body) {
    list.replaceChildren();
    body.benchmarks.forEach((uri, i) => {
      const li = document.createElement("li");
      li.id = `benchmark-option-${i}`;
      li.setAttribute("role", "option");
      li.setAttribute("aria-selected", "false");
      li.dataset.uri = uri;
      const cut = uri.lastIndexOf("/") + 1;
      const dataset = document.createElement("span");
      dataset.className = "dataset";
      dataset.textContent = uri.slice(0, cut);
      const name = document.createElement("span");
      name.className = "name";
      name.textContent = uri.slice(cut);
      li.append(dataset, name);
      // mousedown, not click: the field's blur would close the list first.
      li.addEventListener("mousedown", (event) => {
        event.preventDefault();
        choose(uri);
      });
      list.appendChild(li);
    });
    const note = document.createElement("li");
    note.className = "note";
    note.id = "benchmark-count";
    const count = body.total === 1 ? "1 benchmark matches" : `${body.total} benchmarks match`;
    if (!body.total) note.textContent = "no benchmark matches; a URI typed in full starts as it is";
    else if (body.truncated) note.textContent = `${count}; the first ${body.benchmarks.length} shown: type more`;
    else note.textContent = count;
    list.appendChild(note);
    list.hidden = false;
    input.setAttribute("aria-expanded", "true");
    active = -1;
  }

  function query() {
    clearTimeout(timer);
    const text = input.value.trim();
    const id = ++asked;
    timer = setTimeout(() => {
      track(
        search(text, SHOWN).then((body) => {
          if (id === asked && document.activeElement === input) show(body);
        }),
      );
    }, DEBOUNCE_MS);
  }

  input.addEventListener("input", query);
  input.addEventListener("focus", query);
  input.addEventListener("blur", () => {
    clearTimeout(timer);
    asked += 1;
    close();
  });
  input.addEventListener("keydown", (event) => {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      if (list.hidden) query();
      else highlight(active + (event.key === "ArrowDown" ? 1 : -1));
    } else if (event.key === "Enter") {
      event.preventDefault();
      if (!list.hidden && active >= 0) choose(options()[active].dataset.uri);
      else {
        close();
        onEnter();
      }
    } else if (event.key === "Escape") {
      close();
    }
  });
}
