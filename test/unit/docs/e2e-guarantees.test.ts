import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The table "What each guarantee is proven by" in test/e2e/README.md names, for each guarantee the
 * docs state, the checks that prove it, their tier and n8n line(s). This keeps it true without a
 * running n8n: every e2e check it quotes is a check of test/e2e/*.ts (read as source text, not
 * imported: the case modules need a server), "+ 1.123" stands exactly beside the checks that run on
 * n8n 1.x (Check.onN8n1), and every queue check it quotes is one of scripts/test-queue.ts.
 */

const REPO = path.resolve(__dirname, '..', '..', '..');
const TABLE_HEADING = '## What each guarantee is proven by';
const TIERS = ['e2e 2.41', 'e2e 2.41 + 1.123', 'queue 2.41', 'engine', 'unit', 'chaos', 'browser', 'bench'];
/** The longest value a `${...}` of a check name stands for in a quotation (an event count, a JSON answer). */
const MAX_VALUE = 80;

/** A check name as written in the source: its text between the `${...}` of a template literal (one part for a plain string). */
interface Name {
	parts: string[];
	shown: string;
}

interface Token {
	kind: 'word' | 'punct' | 'literal' | 'other';
	text: string;
	name?: Name;
}

interface Frame {
	open: string;
	children: Token[];
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '0': '\0' };
const REGEX_AFTER_WORDS = new Set(['return', 'typeof', 'case', 'do', 'else', 'in', 'of', 'new', 'delete', 'void', 'throw', 'instanceof', 'yield', 'await']);

/**
 * Reads TypeScript source far enough to see its brackets, words and literals (comments, strings,
 * template literals with their `${...}` and regular expressions skipped as such), and hands each
 * closed `{...}` or `[...]` to `closed` with the tokens directly inside it.
 */
function scan(source: string, closed: (frame: Frame) => void): void {
	const stack: Frame[] = [{ open: '', children: [] }];
	const templates: Array<{ parts: string[]; current: string }> = [];
	let last: Token | undefined;
	let i = 0;
	const push = (token: Token) => {
		stack[stack.length - 1].children.push(token);
		last = token;
	};
	/** Reads a template literal from i (after its backtick or a closing `}` of an expression) up to its end or its next `${`. */
	const readTemplate = () => {
		const template = templates[templates.length - 1];
		while (i < source.length) {
			const c = source[i];
			if (c === '\\') {
				template.current += ESCAPES[source[i + 1]] ?? source[i + 1];
				i += 2;
			} else if (c === '`') {
				i++;
				templates.pop();
				const parts = [...template.parts, template.current];
				push({ kind: 'literal', text: '`', name: { parts, shown: parts.join('${…}') } });
				return;
			} else if (c === '$' && source[i + 1] === '{') {
				i += 2;
				template.parts.push(template.current);
				template.current = '';
				stack.push({ open: '${', children: [] });
				last = { kind: 'punct', text: '{' };
				return;
			} else {
				template.current += c;
				i++;
			}
		}
	};
	while (i < source.length) {
		const c = source[i];
		if (/\s/.test(c)) {
			i++;
		} else if (c === '/' && source[i + 1] === '/') {
			while (i < source.length && source[i] !== '\n') i++;
		} else if (c === '/' && source[i + 1] === '*') {
			const end = source.indexOf('*/', i + 2);
			i = end < 0 ? source.length : end + 2;
		} else if (c === "'" || c === '"') {
			let value = '';
			i++;
			while (i < source.length && source[i] !== c) {
				if (source[i] === '\\') {
					value += ESCAPES[source[i + 1]] ?? source[i + 1];
					i += 2;
				} else value += source[i++];
			}
			i++;
			push({ kind: 'literal', text: c, name: { parts: [value], shown: value } });
		} else if (c === '`') {
			i++;
			templates.push({ parts: [], current: '' });
			readTemplate();
		} else if (c === '/' && (!last || (last.kind === 'punct' && !/[)\]}]/.test(last.text)) || (last.kind === 'word' && REGEX_AFTER_WORDS.has(last.text)))) {
			let inClass = false;
			i++;
			while (i < source.length && (source[i] !== '/' || inClass)) {
				if (source[i] === '\\') i++;
				else if (source[i] === '[') inClass = true;
				else if (source[i] === ']') inClass = false;
				i++;
			}
			i++;
			while (/[a-z]/.test(source[i] ?? '')) i++;
			push({ kind: 'other', text: 'regex' });
		} else if (/[A-Za-z_$]/.test(c)) {
			const start = i;
			while (/[\w$]/.test(source[i] ?? '')) i++;
			push({ kind: 'word', text: source.slice(start, i) });
		} else if (/[0-9]/.test(c)) {
			while (/[\w.]/.test(source[i] ?? '')) i++;
			push({ kind: 'other', text: 'number' });
		} else if (c === '{' || c === '(' || c === '[') {
			push({ kind: 'punct', text: c });
			stack.push({ open: c, children: [] });
			i++;
		} else if (c === '}' || c === ')' || c === ']') {
			i++;
			const frame = stack.length > 1 ? stack.pop()! : stack[0];
			if (frame.open === '${') {
				readTemplate();
				continue;
			}
			closed(frame);
			last = { kind: 'punct', text: c };
		} else {
			push({ kind: 'punct', text: c });
			i++;
		}
	}
}

/** The value of property `key` (a word followed by `:`) among an object's own tokens, or whether it is there. */
function property(children: Token[], key: string): Token | undefined {
	for (let j = 0; j + 2 < children.length; j++) {
		if (children[j].kind === 'word' && children[j].text === key && children[j + 1].text === ':') return children[j + 2];
	}
	return undefined;
}

/** The checks of an e2e case file: the objects with a literal `name` and an `fn` (method or property). */
function e2eChecks(source: string): Array<{ name: Name; onN8n1: boolean }> {
	const checks: Array<{ name: Name; onN8n1: boolean }> = [];
	scan(source, (frame) => {
		if (frame.open !== '{') return;
		const name = property(frame.children, 'name');
		const hasFn = frame.children.some((token, j) => token.kind === 'word' && token.text === 'fn' && ['(', ':'].includes(frame.children[j + 1]?.text));
		if (name && name.name && hasFn) checks.push({ name: name.name, onN8n1: property(frame.children, 'onN8n1') !== undefined });
	});
	return checks;
}

/** The checks of the queue tier: `[name, () => ...]` pairs. */
function queueChecks(source: string): Name[] {
	const names: Name[] = [];
	scan(source, (frame) => {
		const [first, comma, next] = frame.children;
		if (frame.open === '[' && first?.name && comma?.text === ',' && (next?.text === '(' || next?.text === 'async')) names.push(first.name);
	});
	return names;
}

/**
 * Whether `text` is `parts` with each gap filled by a value (1 to MAX_VALUE characters, one line),
 * or, with `prefix`, the start of such a text that does not end inside a value.
 */
function fits(text: string, parts: string[], index: number, prefix: boolean): boolean {
	const literal = parts[index];
	if (prefix && text.length <= literal.length) return literal.startsWith(text);
	if (!text.startsWith(literal)) return false;
	const rest = text.slice(literal.length);
	if (index === parts.length - 1) return rest === '';
	const longest = Math.min(prefix ? rest.length - 1 : rest.length, MAX_VALUE);
	for (let take = 1; take <= longest && !rest.slice(0, take).includes('\n'); take++) {
		if (fits(rest.slice(take), parts, index + 1, prefix)) return true;
	}
	return false;
}

/** Whether a quotation (the whole name, or a prefix ending in "…") names this check. */
function quotes(quotation: string, name: Name): boolean {
	const prefix = quotation.endsWith('…');
	const text = prefix ? quotation.slice(0, -1).trimEnd() : quotation;
	return text.length > 0 && fits(text, name.parts, 0, prefix);
}

interface Entry {
	row: string;
	proof: string;
	tier: string;
	how: string;
}

/** The entries of the table: per row, its `<br>`-separated proofs, each with the tier and the how at the same place. */
function tableEntries(readme: string): { rows: number; entries: Entry[]; misaligned: string[] } {
	const start = readme.indexOf(`\n${TABLE_HEADING}\n`);
	if (start < 0) throw new Error(`test/e2e/README.md has no section "${TABLE_HEADING}"`);
	const lines = readme.slice(start + 1).split('\n').slice(1);
	const end = lines.findIndex((line) => /^## /.test(line));
	const table = lines.slice(0, end < 0 ? undefined : end).filter((line) => line.startsWith('|'));
	const cells = (line: string) => line.replace(/^\|/, '').replace(/\|\s*$/, '').split('|').map((cell) => cell.trim());
	const header = cells(table[0]);
	const column = (title: string) => {
		const index = header.indexOf(title);
		if (index < 0) throw new Error(`the table has no column "${title}": ${header.join(' | ')}`);
		return index;
	};
	const [id, proof, tier, how] = [column('#'), column('Proven by'), column('Tier, n8n line'), column('How the run starts')];
	const entries: Entry[] = [];
	const misaligned: string[] = [];
	const rows = table.slice(2).map(cells);
	for (const row of rows) {
		const split = (cell: string) => cell.split(/<br\s*\/?>/).map((part) => part.trim());
		const [proofs, tiers, hows] = [split(row[proof]), split(row[tier]), split(row[how])];
		if (tiers.length !== proofs.length || hows.length !== proofs.length) misaligned.push(`${row[id]}: ${proofs.length} proofs, ${tiers.length} tiers, ${hows.length} hows`);
		proofs.forEach((each, k) => entries.push({ row: row[id], proof: each, tier: tiers[k] ?? '', how: hows[k] ?? '' }));
	}
	return { rows: rows.length, entries, misaligned };
}

function read(file: string): string {
	return fs.readFileSync(path.join(REPO, file), 'utf8');
}

describe('test/e2e/README.md, "What each guarantee is proven by": each quoted check exists, on the lines it runs on', () => {
	const e2eDir = path.join(REPO, 'test', 'e2e');
	const checks = fs
		.readdirSync(e2eDir)
		.filter((file) => file.endsWith('.ts'))
		.flatMap((file) => e2eChecks(fs.readFileSync(path.join(e2eDir, file), 'utf8')).map((check) => ({ ...check, file })));
	const queue = queueChecks(read('scripts/test-queue.ts'));
	const { rows, entries, misaligned } = tableEntries(read('test/e2e/README.md'));
	const quotation = (entry: Entry) => [...entry.proof.matchAll(/`([^`]+)`/g)].map((match) => match[1]);

	it('reads the checks and the table (the parsers see what they should)', () => {
		expect(checks.length).toBeGreaterThan(60);
		expect(checks.filter((check) => check.onN8n1).length).toBeGreaterThan(20);
		expect(checks.find((check) => check.name.shown.startsWith("approval: a row edited, a row added or a row removed between approval and run refuses the whole run (every row on the example's error output)"))).toBeDefined();
		expect(queue.length).toBeGreaterThan(5);
		expect(rows).toBeGreaterThan(40);
		expect(misaligned).toEqual([]);
	});

	it('names only the tiers it defines', () => {
		expect(entries.filter((entry) => !TIERS.includes(entry.tier)).map((entry) => `${entry.row}: "${entry.tier}"`)).toEqual([]);
	});

	it('quotes each e2e check by its name or a prefix of it ending in "…", matching exactly one check, with "+ 1.123" exactly when the check runs on n8n 1.x (onN8n1)', () => {
		const problems: string[] = [];
		for (const entry of entries.filter((each) => each.tier.startsWith('e2e'))) {
			const quoted = quotation(entry);
			if (quoted.length !== 1) {
				problems.push(`${entry.row}: an e2e entry quotes ${quoted.length} names: ${entry.proof}`);
				continue;
			}
			const matching = checks.filter((check) => quotes(quoted[0], check.name));
			if (matching.length !== 1) {
				problems.push(`${entry.row}: "${quoted[0]}" matches ${matching.length} checks${matching.length ? `: ${matching.map((check) => `${check.file}: ${check.name.shown}`).join('; ')}` : ''}`);
				continue;
			}
			const [check] = matching;
			if ((entry.tier === 'e2e 2.41 + 1.123') !== check.onN8n1) {
				problems.push(`${entry.row}: "${quoted[0]}" is marked "${entry.tier}", but the check ${check.onN8n1 ? 'runs on n8n 1.x too (onN8n1)' : 'has no onN8n1: it runs on 2.41 only'} (${check.file})`);
			}
		}
		expect(problems).toEqual([]);
	});

	it('quotes each queue check by its name or a prefix of it, matching exactly one check of scripts/test-queue.ts', () => {
		const problems: string[] = [];
		for (const entry of entries.filter((each) => each.tier.startsWith('queue'))) {
			const quoted = quotation(entry);
			const matching = quoted.length === 1 ? queue.filter((name) => quotes(quoted[0], name)) : [];
			if (matching.length !== 1) problems.push(`${entry.row}: ${JSON.stringify(quoted)} matches ${matching.length} queue checks`);
		}
		expect(problems).toEqual([]);
	});

	it('says how each real-server check starts its run', () => {
		const empty = entries.filter((entry) => /^(e2e|queue)/.test(entry.tier) && !entry.how).map((entry) => `${entry.row}: ${entry.proof}`);
		expect(empty).toEqual([]);
	});
});

describe('quotes (how a quotation names a check)', () => {
	const plain: Name = { parts: ['create payout'], shown: 'create payout' };
	const template: Name = { parts: ['Money Trigger horizon, part 2: after ', ' other transactions and 11 minutes, redelivered events start nothing'], shown: '' };

	it('matches a whole name, or a prefix ending in "…", and nothing longer or different', () => {
		expect(quotes('create payout', plain)).toBe(true);
		expect(quotes('create …', plain)).toBe(true);
		expect(quotes('create', plain)).toBe(false);
		expect(quotes('create payouts', plain)).toBe(false);
		expect(quotes('create payout, again …', plain)).toBe(false);
	});

	it('fills the ${...} of a template with a value', () => {
		expect(quotes('Money Trigger horizon, part 2: after 3000 other transactions and 11 minutes, redelivered events start nothing', template)).toBe(true);
		expect(quotes('Money Trigger horizon, part 2: after 3000 other transactions and 11 minutes, …', template)).toBe(true);
		expect(quotes('Money Trigger horizon, part 2: …', template)).toBe(true);
		expect(quotes('Money Trigger horizon, part 2: after 3000 other transactions and 12 minutes, …', template)).toBe(false);
		expect(quotes('Money Trigger horizon, part 1: …', template)).toBe(false);
		// A quotation may not end inside a value: a name that starts with one would match anything.
		expect(quotes('a worker killed mid-run, …', { parts: ['', ' webhook events each delivered twice'], shown: '' })).toBe(false);
		expect(quotes('500 webhook events each …', { parts: ['', ' webhook events each delivered twice'], shown: '' })).toBe(true);
	});

	it('reads check objects and their onN8n1 from source, templates, regular expressions and comments included', () => {
		const source = [
			"const checks = [{ onN8n1: 'differs', name: `a ${count} thing`, async fn() { assert.match(x, /'[{]/); } },",
			"\t// { name: 'commented', fn }",
			"\t{ name: 'plain \\'quoted\\'', fn: () => run('x') }, { name: 'no fn here' }];",
		].join('\n');
		expect(e2eChecks(source).map((check) => [check.name.parts, check.onN8n1])).toEqual([
			[['a ', ' thing'], true],
			[["plain 'quoted'"], false],
		]);
		expect(queueChecks("const checks = [['one', () => a()], [`${n} two`, async () => b()], ['x', 'y']];").map((name) => name.parts)).toEqual([['one'], ['', ' two']]);
	});
});
