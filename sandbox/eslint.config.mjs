export { default } from '../scripts/lint/tools.mjs';
