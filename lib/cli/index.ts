export { run } from './program.js';
