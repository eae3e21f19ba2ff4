/** Small DOM helpers: elements built with text content only (never HTML from data). */

/** An element `tag` with `className`, its text, and `children` appended. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className = '',
  text?: string,
  ...children: Node[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className !== '') {
    node.className = className;
  }
  if (text !== undefined) {
    node.textContent = text;
  }
  node.append(...children);
  return node;
}

/** The element with `id`, which the page must have. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (found === null) {
    throw new Error(`the page has no #${id}`);
  }
  return found as T;
}

/** Microseconds since the epoch as a readable UTC time. */
export function time(micros: number): string {
  return new Date(micros / 1000).toISOString().replace('T', ' ').slice(0, 19);
}

/** Shows `message` in the status line (an error when `error`). */
export function status(message: string, error = false): void {
  const line = byId('status');
  line.textContent = message;
  line.classList.toggle('error', error);
}

/** Asks the operator to confirm `question` in the page's dialog; resolves to the answer. */
export function confirmAction(question: string, action: string): Promise<boolean> {
  const dialog = byId<HTMLDialogElement>('confirm');
  byId('confirm-text').textContent = question;
  byId('confirm-yes').textContent = action;
  dialog.returnValue = '';
  dialog.showModal();
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'yes'), { once: true });
  });
}
