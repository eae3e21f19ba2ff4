/**
 * The explorer's start: checks the API with the tab's key (none at first), asks for a key when
 * the server answers 401, shows health and counts, and wires the panels together.
 */
import { api, ApiError, storedKey, storeKey } from './api.js';
import { byId, status } from './dom.js';
import { openGraph, setUpGraph } from './graph.js';
import { openMemory, setUpMemory } from './memory.js';
import { search, setUpSearch } from './search.js';
import { setUpTimeline } from './timeline.js';
async function refreshHealth() {
    try {
        const health = await api.health();
        byId('health').textContent =
            `${health.serving ? 'serving' : 'not serving'} · hebbs ${health.version} · ` +
                `${health.memory_count} memories · up ${health.uptime_seconds} s`;
        byId('key-dialog').hidden = true;
        byId('app').hidden = false;
        return true;
    }
    catch (error) {
        if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
            askForKey(storedKey() === null ? '' : error.message);
            return false;
        }
        status(error.message, true);
        return false;
    }
}
function askForKey(problem) {
    byId('app').hidden = true;
    byId('key-dialog').hidden = false;
    byId('key-error').textContent = problem;
    byId('api-key').focus();
}
function start() {
    byId('key-form').addEventListener('submit', (event) => {
        event.preventDefault();
        const input = byId('api-key');
        storeKey(input.value.trim());
        input.value = '';
        void refreshHealth();
    });
    byId('change-key').addEventListener('click', () => {
        storeKey(null);
        askForKey('');
    });
    const changed = () => {
        void refreshHealth();
        void search(true);
    };
    setUpSearch((id) => void openMemory(id));
    setUpMemory(changed, (id) => void openGraph(id));
    setUpGraph((id) => void openMemory(id));
    setUpTimeline((id) => void openMemory(id));
    void refreshHealth();
}
start();
