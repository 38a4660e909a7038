// Loaded lazily by the captcha field, so the widget never weighs on the initial bundle.
// The "external" build ships no inline <style> and no blob: workers: its CSS is a normal
// stylesheet and each proof-of-work worker is a same-origin file, so it runs under a strict
// CSP (script-src 'self'; worker-src 'self').
import 'altcha/external';
import 'altcha/altcha.css';
import Pbkdf2Worker from 'altcha/workers/pbkdf2?worker';
import ShaWorker from 'altcha/workers/sha?worker';

for (const algorithm of ['SHA-256', 'SHA-384', 'SHA-512'] as const) {
  globalThis.$altcha.algorithms.set(algorithm, () => new ShaWorker());
}
for (const algorithm of ['PBKDF2/SHA-256', 'PBKDF2/SHA-384', 'PBKDF2/SHA-512'] as const) {
  globalThis.$altcha.algorithms.set(algorithm, () => new Pbkdf2Worker());
}
