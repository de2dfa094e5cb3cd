import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';

const REPO = path.resolve(__dirname, '..', '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8'));
/** The repository's web address, as package.json names it: where every documentation link must point. */
const HOME = String(pkg.homepage).replace(/\/$/, '');

function tracked(pattern: RegExp): string[] {
	const res = spawnSync('git', ['ls-files'], { cwd: REPO, encoding: 'utf8' });
	const untracked = spawnSync('git', ['ls-files', '--others', '--exclude-standard'], { cwd: REPO, encoding: 'utf8' });
	return [...new Set(`${res.stdout}\n${untracked.stdout}`.split('\n').filter((f) => pattern.test(f) && fs.existsSync(path.join(REPO, f))))].sort();
}

/** GitHub's anchors of a Markdown file: its headings' slugs (with -1, -2 for repeats) and explicit id/name anchors. */
export function anchorsOf(markdown: string): Set<string> {
	const anchors = new Set<string>();
	const seen = new Map<string, number>();
	let fenced = false;
	for (const line of markdown.split('\n')) {
		if (/^\s*```/.test(line)) fenced = !fenced;
		if (fenced) continue;
		const heading = line.match(/^#{1,6}\s+(.*?)\s*#*\s*$/);
		if (heading) {
			const base = heading[1]
				.replace(/<[^>]+>/g, '')
				.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
				.toLowerCase()
				.replace(/[^\p{L}\p{N}\s_-]/gu, '')
				.replace(/\s/g, '-');
			const n = seen.get(base) ?? 0;
			seen.set(base, n + 1);
			anchors.add(n === 0 ? base : `${base}-${n}`);
		}
		for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]);
	}
	return anchors;
}

/** Every documentation address the pack shows in n8n: credentials' and nodes' documentationUrl, codex resources. */
function documentationUrls(): Array<{ where: string; url: string }> {
	const out: Array<{ where: string; url: string }> = [];
	for (const file of tracked(/^(credentials\/.*\.ts|nodes\/.*\.node\.ts)$/)) {
		const text = fs.readFileSync(path.join(REPO, file), 'utf8');
		for (const m of text.matchAll(/documentationUrl\s*[:=]\s*['"`]([^'"`]+)['"`]/g)) out.push({ where: file, url: m[1] });
	}
	for (const file of tracked(/^nodes\/.*\.node\.json$/)) {
		const codex = JSON.parse(fs.readFileSync(path.join(REPO, file), 'utf8'));
		for (const [kind, links] of Object.entries((codex.resources || {}) as Record<string, Array<{ url: string }>>)) {
			for (const link of links) out.push({ where: `${file} resources.${kind}`, url: link.url });
		}
	}
	return out;
}

/** The repository file and anchor an address names, or why it names none. */
function target(url: string): { file: string; anchor: string } | string {
	if (!url.startsWith(HOME)) return `points outside the repository (${HOME})`;
	const [rest, anchor = ''] = url.slice(HOME.length).split('#');
	if (rest === '' || rest === '/') return { file: 'README.md', anchor };
	const blob = rest.match(/^\/blob\/[^/]+\/(.+)$/);
	return blob ? { file: blob[1], anchor } : `names no file of the repository (${rest})`;
}

describe('documentation links: every address n8n shows for the pack, and every relative link of the docs, leads somewhere', () => {
	const urls = documentationUrls();

	it('the pack has documentation links (credential, three nodes)', () => {
		expect(urls.filter((u) => u.where.startsWith('credentials/')).length).toBeGreaterThan(0);
		expect(new Set(urls.filter((u) => u.where.endsWith('.json resources.primaryDocumentation')).map((u) => u.where)).size).toBe(3);
	});

	it.each(urls.map((u) => [u.where, u.url]))('%s: %s', (_where, url) => {
		const t = target(url);
		if (typeof t === 'string') throw new Error(`${url} ${t}`);
		const file = path.join(REPO, t.file);
		if (!fs.existsSync(file)) throw new Error(`${url}: ${t.file} does not exist`);
		if (t.anchor && !anchorsOf(fs.readFileSync(file, 'utf8')).has(t.anchor)) {
			throw new Error(`${url}: ${t.file} has no anchor #${t.anchor} (anchors: ${[...anchorsOf(fs.readFileSync(file, 'utf8'))].join(', ')})`);
		}
	});

	it.each(tracked(/\.md$/).filter((f) => !f.startsWith('node_modules/')))('%s: its relative links and anchors exist', (doc) => {
		const text = fs.readFileSync(path.join(REPO, doc), 'utf8').replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
		const broken: string[] = [];
		for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
			const link = m[1];
			if (/^[a-z]+:/i.test(link)) continue;
			const [rel, anchor] = link.split('#');
			const file = rel ? path.join(path.dirname(path.join(REPO, doc)), rel) : path.join(REPO, doc);
			if (!fs.existsSync(file)) broken.push(`${link} (no such file)`);
			else if (anchor && file.endsWith('.md') && !anchorsOf(fs.readFileSync(file, 'utf8')).has(anchor)) broken.push(`${link} (no such anchor)`);
		}
		expect(broken).toEqual([]);
	});

	it.each(tracked(/\.(ts|js|mjs|json|yml)$/).filter((f) => !f.startsWith('node_modules/') && !f.startsWith('bench/results/') && f !== 'package-lock.json'))(
		'%s: every repository document it cites (docs/…, README.md, …#anchor) exists',
		(source) => {
			const text = fs.readFileSync(path.join(REPO, source), 'utf8');
			const broken: string[] = [];
			for (const m of text.matchAll(/(?<![\w/.-])((?:docs\/[\w/-]+|[\w/-]*README|CONTRIBUTING|RELEASING|CHANGELOG)\.md)(?:#([\w-]+))?/g)) {
				const [cited, file, anchor] = m;
				const full = path.join(REPO, file);
				if (!fs.existsSync(full)) broken.push(`${cited} (no such file)`);
				else if (anchor && !anchorsOf(fs.readFileSync(full, 'utf8')).has(anchor)) broken.push(`${cited} (no such anchor)`);
			}
			expect(broken).toEqual([]);
		},
	);

	it("anchorsOf follows GitHub's slugs", () => {
		const anchors = anchorsOf('# A Title\n## Money node\n## Money node\n## `code` & (parens), 2.41.x!\n```\n# not a heading\n```\n<a id="d7"></a>\n');
		expect([...anchors]).toEqual(['a-title', 'money-node', 'money-node-1', 'code--parens-241x', 'd7']);
	});
});
