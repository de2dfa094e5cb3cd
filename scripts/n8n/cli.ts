/** n8n's command line (`import:*`, `execute`, ...) against a user folder's database and settings. */

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn } from 'node:child_process';

import type { Json } from './api';
import { ensureN8n } from './install';
import { log, tail } from './log';
import { freePort, killGroup, track } from './processes';

export interface CliOptions {
	/** From n8nEnv or handle.env; required: it carries N8N_USER_FOLDER. */
	env?: NodeJS.ProcessEnv;
	/** Default 180000. */
	timeoutMs?: number;
	/** false: resolve a failed command instead of throwing. */
	check?: boolean;
	quiet?: boolean;
}

export interface CliResult {
	code: number | null;
	signal: NodeJS.Signals | null;
	stdout: string;
	stderr: string;
	timedOut: boolean;
	/** The parsed JSON output, if any. */
	json: Json;
	crashedAtExit: boolean;
}

/**
 * Run an n8n CLI command (`import:credentials --input=F`, `import:workflow --input=F`,
 * `execute --id=ID --rawOutput`, `publish:workflow --id=ID`, ...).
 * Fresh task-broker and runner health ports are used so it never collides with a running server.
 */
export async function n8nCli(args: string[], opts: CliOptions = {}): Promise<CliResult> {
	const { nodeBin, n8nBin } = ensureN8n();
	const env: NodeJS.ProcessEnv = { ...(opts.env || {}) };
	if (!env.N8N_USER_FOLDER) throw new Error('n8nCli: env.N8N_USER_FOLDER is required (use n8nEnv() or handle.cli())');
	env.N8N_RUNNERS_BROKER_PORT = String(await freePort());
	env.N8N_RUNNERS_HEALTH_CHECK_SERVER_PORT = String(await freePort());
	env.PATH = [path.dirname(nodeBin), env.PATH || process.env.PATH].join(path.delimiter);
	const child = spawn(nodeBin, [n8nBin, ...args], { cwd: env.N8N_USER_FOLDER, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
	track(child);
	let stdout = '';
	let stderr = '';
	child.stdout.on('data', (d) => (stdout += d));
	child.stderr.on('data', (d) => (stderr += d));
	const timeoutMs = opts.timeoutMs || 180_000;
	let timedOut = false;
	const timer = setTimeout(() => {
		timedOut = true;
		killGroup(child, 'SIGKILL');
	}, timeoutMs);
	const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
		child.once('close', (c, s) => resolve({ code: c, signal: s })),
	);
	clearTimeout(timer);
	const result: CliResult = { code, signal, stdout, stderr, timedOut, json: parseJsonOutput(stdout), crashedAtExit: false };
	// n8n 2.41 `execute` ends with process.exit() without disposing its isolated-vm expression
	// pool, which may be building a new isolate right then: about one run in ten dies with
	// SIGSEGV *after* printing its complete result. Judge such a run by what it printed.
	if (signal === 'SIGSEGV' && !timedOut && args[0] === 'execute' && result.json && result.json.status) {
		result.crashedAtExit = true;
		result.code = result.json.status === 'success' ? 0 : 1;
		if (!opts.quiet) log(`note: n8n ${args[0]} crashed at exit (SIGSEGV, known n8n 2.41 isolated-vm exit race) after printing a complete result; using the result`);
	}
	if (opts.check !== false && result.code !== 0) {
		const err = new Error(
			`n8n ${args.join(' ')} failed (exit ${code}${signal ? `, ${signal}` : ''}${timedOut ? ', timed out' : ''}):\n${tail(stdout + stderr, 30)}`,
		) as Error & { result?: CliResult };
		err.result = result;
		throw err;
	}
	return result;
}

/**
 * `n8n execute --rawOutput` prints log lines, then the run as pretty JSON (a failed run: the
 * JSON between log lines). Return the largest top-level JSON object or array in the text that
 * parses (a line opening with `{`/`[` up to a line closing with `}`/`]`), or undefined.
 */
export function parseJsonOutput(text: string): Json {
	const lines = String(text).split('\n');
	const starts: number[] = [];
	const ends: number[] = [];
	lines.forEach((l, i) => {
		if (/^[{[]/.test(l)) starts.push(i);
		if (/^[}\]]\s*$/.test(l) || /^[{[].*[}\]]\s*$/.test(l)) ends.push(i);
	});
	let best: Json;
	let bestLen = -1;
	for (const i of starts) {
		for (let k = ends.length - 1; k >= 0; k--) {
			const j = ends[k];
			if (j < i || j - i <= bestLen) continue;
			try {
				best = JSON.parse(lines.slice(i, j + 1).join('\n'));
				bestLen = j - i;
				break;
			} catch {
				/* try a shorter span */
			}
		}
	}
	return best;
}

/** Write value as JSON to a temp file and run `n8n <command> --input=file`. */
export async function importJson(command: string, value: unknown, opts: CliOptions = {}): Promise<CliResult> {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'money-import-'));
	const file = path.join(dir, 'input.json');
	fs.writeFileSync(file, JSON.stringify(value, null, 2));
	try {
		return await n8nCli([command, `--input=${file}`], opts);
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}
