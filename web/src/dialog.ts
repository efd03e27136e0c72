import { h, type Child } from "./dom.ts";

export interface DialogAction {
  readonly label: string;
  readonly value: string;
  /** The safe choice: it gets the focus when the dialog opens (Escape also picks nothing). */
  readonly safe?: boolean;
  readonly danger?: boolean;
}

/**
 * An in-page modal question (the native <dialog>: focus moves into it and stays there, Escape
 * cancels, the page behind is inert). Resolves with the chosen action's value, or null when
 * cancelled. Unlike window.confirm it blocks nothing but this page's clicks.
 */
let opened = 0;

export function ask(title: string, body: Child, actions: readonly DialogAction[]): Promise<string | null> {
  return new Promise((resolve) => {
    const titleId = `dialog-title-${++opened}`;
    let answered = false;
    const done = (value: string | null) => {
      if (answered) return;
      answered = true;
      dialog.close();
      dialog.remove();
      resolve(value);
    };
    const buttons = actions.map((a) =>
      h("button", { type: "button", class: a.danger ? "danger" : a.safe ? "" : "primary", "data-action": a.value, onclick: () => done(a.value) }, a.label),
    );
    const dialog = h(
      "dialog",
      { class: "confirm", "aria-labelledby": titleId, "aria-modal": "true" },
      h("h2", { id: titleId }, title),
      h("div", { class: "dialog-body" }, body),
      h("div", { class: "dialog-actions" }, buttons),
    );
    dialog.addEventListener("cancel", (e) => {
      e.preventDefault();
      done(null);
    });
    document.body.appendChild(dialog);
    dialog.showModal();
    const safe = actions.findIndex((a) => a.safe);
    buttons[safe >= 0 ? safe : 0]?.focus();
  });
}
