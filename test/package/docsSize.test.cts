import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The hand-written docs (docs/*.md) within what a maintainer reads in an hour, all of them together. What a command
 * measured lives in docs/measured/, written there by the command (scripts/docsSection.cts), and is not counted; nor
 * are the screenshots.
 */
const docs = join(__dirname, '..', '..', 'docs');
const MOST_BYTES = 60_000;

/** Each hand-written page directly under docs/, with its text. */
const pages = readdirSync(docs)
	.filter((name) => name.endsWith('.md'))
	.map((name) => ({ name, text: readFileSync(join(docs, name), 'utf8') }));

test(`the hand-written docs (docs/*.md) hold at most ${MOST_BYTES} bytes together`, () => {
	expect(pages.length).toBeGreaterThan(0);
	const total = pages.reduce((sum, { text }) => sum + Buffer.byteLength(text), 0);
	expect(total).toBeLessThanOrEqual(MOST_BYTES);
});

test('no hand-written page holds a section a command writes: those are in docs/measured/', () => {
	const written = pages.filter(({ text }) => /<!-- [^ ]+: start -->/.test(text)).map(({ name }) => name);
	expect(written).toEqual([]);
	expect(readdirSync(join(docs, 'measured')).filter((name) => name.endsWith('.md')).length).toBeGreaterThan(0);
});
