import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Each concern of the shipped code within its budget of lines, all its files together (docs/development.md says why
 * each budget is what it is). A concern is a folder: a file split in two stays inside it, so splitting meets no budget.
 */
const root = join(__dirname, '..', '..');

const budgets: Array<{ concern: string; folder: string; lines: number }> = [
	{ concern: 'the list reader', folder: 'nodes/shared/transport/lists', lines: 516 },
	{ concern: 'the pace', folder: 'nodes/shared/transport/pace', lines: 250 },
	{ concern: 'the poll trigger', folder: 'nodes/ProductRegistrationPollTrigger', lines: 457 },
	{ concern: 'the shipped nodes as a whole', folder: 'nodes', lines: 6351 },
];

/** The lines of every TypeScript file under `folder`. */
function linesUnder(folder: string): number {
	return readdirSync(folder).reduce((sum, name) => {
		const path = join(folder, name);
		if (statSync(path).isDirectory()) return sum + linesUnder(path);
		return name.endsWith('.ts') ? sum + readFileSync(path, 'utf8').split('\n').length - 1 : sum;
	}, 0);
}

test.each(budgets)('$concern ($folder) stays within $lines lines', ({ folder, lines }) => {
	expect(linesUnder(join(root, folder))).toBeLessThanOrEqual(lines);
});
