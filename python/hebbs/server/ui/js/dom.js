/** Small DOM helpers: elements built with text content only (never HTML from data). */
/** An element `tag` with `className`, its text, and `children` appended. */
export function el(tag, className = '', text, ...children) {
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
export function byId(id) {
    const found = document.getElementById(id);
    if (found === null) {
        throw new Error(`the page has no #${id}`);
    }
    return found;
}
/** Microseconds since the epoch as a readable UTC time. */
export function time(micros) {
    return new Date(micros / 1000).toISOString().replace('T', ' ').slice(0, 19);
}
/** Shows `message` in the status line (an error when `error`). */
export function status(message, error = false) {
    const line = byId('status');
    line.textContent = message;
    line.classList.toggle('error', error);
}
/** Asks the operator to confirm `question` in the page's dialog; resolves to the answer. */
export function confirmAction(question, action) {
    const dialog = byId('confirm');
    byId('confirm-text').textContent = question;
    byId('confirm-yes').textContent = action;
    dialog.returnValue = '';
    dialog.showModal();
    return new Promise((resolve) => {
        dialog.addEventListener('close', () => resolve(dialog.returnValue === 'yes'), { once: true });
    });
}
