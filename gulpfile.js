const { src, dest } = require('gulp');

// tsc emits only JavaScript; n8n loads the icons that the node and credential name with `file:` from dist/.
function copyIcons() {
	return src(['nodes/**/*.svg', 'credentials/**/*.svg'], { base: '.', encoding: false }).pipe(dest('dist'));
}

exports['build:icons'] = copyIcons;
