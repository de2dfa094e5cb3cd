export { default } from './lint/tools.mjs';
