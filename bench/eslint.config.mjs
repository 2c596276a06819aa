export { default } from '../eslint.tooling.mjs';
