// Removes the build output so a build never ships files of a deleted source.
const { rmSync } = require('node:fs');
const { join } = require('node:path');

rmSync(join(__dirname, '..', 'dist'), { recursive: true, force: true });
