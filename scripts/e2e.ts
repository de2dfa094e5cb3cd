/**
 * End-to-end tier (`npm run test:e2e`): the built pack in a real n8n server (2.41.1 by default;
 * `npm run test:e2e -- --n8n 1.123.x` or MONEY_N8N_VERSION for another tested version), against
 * the Money API sandbox, on loopback ports of its own.
 *
 *   1. install (once, cached) n8n and a Node for it  scripts/n8n/install.ts
 *   2. install the pack as a user installs a build: npm pack, then npm install <tarball> in the
 *      user folder's .n8n/nodes (build first: npm run build; test/e2e/install.ts checks it)
 *   3. start the sandbox and n8n (owner from env), import the credential and the workflows
 *   4. run the named checks of test/e2e/cases.ts in order: `ok - name` / `not ok - name: reason`
 *   5. print `N passed, N failed` as the last line; exit 1 on any failure
 *
 * `--part payments|poll|webhook` runs one of the three parts of the checks (PARTS below).
 *
 * Environment: E2E_ONLY=substring[|substring...] (run matching checks only, case-insensitive; the others are skipped and not
 * counted), E2E_ALL=1 (on n8n 1.x, every check, not only those of what differs there: Check.onN8n1), E2E_KEEP=1 (keep the n8n user folder; it is always kept on failure), MONEY_PACK_DIR
 * (test another build: a folder with package.json + dist), E2E_CHECK_LIMIT_MS (a check still running
 * after it fails, default 600000, unless the check sets its own limitMs), MONEY_TOTALS_FILE (totals appended as
 * JSON for .ci/run), and those of scripts/n8n/versions.ts (MONEY_CACHE_DIR, ...).
 */

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import * as agent from '../test/e2e/agent';
import * as approval from '../test/e2e/approval';
import * as cancel from '../test/e2e/cancel';
import * as cases from '../test/e2e/cases';
import * as clientChanges from '../test/e2e/client-changes';
import * as completeReads from '../test/e2e/complete-reads';
import * as installCheck from '../test/e2e/install';
import * as instances from '../test/e2e/instances';
import type { E2eContext } from '../test/e2e/case-setup';
import * as crashShapes from '../test/e2e/crash-shapes';
import * as manualRuns from '../test/e2e/manual-runs';
import * as pollTrigger from '../test/e2e/poll-trigger';
import * as reruns from '../test/e2e/reruns';
import * as resends from '../test/e2e/resends';
import * as retryChanges from '../test/e2e/retry-changes';
import * as secretScan from '../test/e2e/secret-scan';
import * as subWorkflows from '../test/e2e/sub-workflows';
import * as triggerAssumptions from '../test/e2e/trigger-assumptions';
import * as triggerBackstop from '../test/e2e/trigger-backstop';
import * as triggerConfirm from '../test/e2e/trigger-confirm';
import * as triggerHorizon from '../test/e2e/trigger-horizon';
import * as triggerLabelsSecret from '../test/e2e/trigger-labels-secret';
import * as triggerLoad from '../test/e2e/trigger-load';
import * as triggerCost from '../test/e2e/trigger-cost';
import * as triggerThrottle from '../test/e2e/trigger-throttle';
import * as triggerMemory from '../test/e2e/trigger-memory';
import { CREDENTIAL, CREDENTIAL_TYPE } from '../test/e2e/workflows';
import * as rt from './n8n';
import { failSetup, oneLine, report, runMain, say } from './output';
import { moneyCredentialFor } from '../sandbox/control/credential';
import { startSandbox, type SandboxHandle } from './sandbox-process';

// `--n8n 1.123.x` (or `--n8n=2.41.1`) picks the n8n version; it must be set before the runtime is first asked for it.
const n8nArg = process.argv.findIndex((a) => a === '--n8n' || a.startsWith('--n8n='));
if (n8nArg >= 0) {
	const value = process.argv[n8nArg].includes('=') ? process.argv[n8nArg].split('=')[1] : process.argv[n8nArg + 1];
	if (!value) failSetup(new Error('--n8n needs a version, e.g. --n8n 1.123.x'));
	process.env.MONEY_N8N_VERSION = value;
}
try {
	rt.n8nVersion();
} catch (err) {
	failSetup(err);
}

const REPO = path.resolve(__dirname, '..');
/**
 * The check modules, in the order they run (cases.ts ends with its token count), in three parts
 * that share nothing but the installed pack: `payments` (the Money node's runs), `poll` (the
 * Poll Trigger and complete reads: lists read whole) and `webhook` (the Money Trigger's
 * deliveries). `--part NAME` runs one part on an n8n and a sandbox of its own (CI runs the parts
 * side by side); no `--part` runs them all in one server. The secret scan ends each run.
 */
const PARTS = {
	payments: [installCheck, cases, reruns, resends, retryChanges, clientChanges, instances, manualRuns, subWorkflows, crashShapes, cancel, approval, agent],
	poll: [pollTrigger, completeReads, triggerBackstop],
	webhook: [triggerHorizon, triggerAssumptions, triggerMemory, triggerCost, triggerConfirm, triggerLabelsSecret, triggerLoad, triggerThrottle],
};
const partArg = process.argv.findIndex((a) => a === '--part' || a.startsWith('--part='));
const part = partArg < 0 ? undefined : process.argv[partArg].includes('=') ? process.argv[partArg].split('=')[1] : process.argv[partArg + 1];
if (part !== undefined && !(part in PARTS)) failSetup(new Error(`--part takes ${Object.keys(PARTS).join(', ')}, not ${part}`));
const CASE_MODULES = [...(part ? PARTS[part as keyof typeof PARTS] : Object.values(PARTS).flat()), secretScan];
/**
 * The sandbox's clients with 8-digit PINs: the secret scan looks for the PIN in every execution
 * and log line, and the default 4-digit one turns up by chance inside random hex references.
 */
const SANDBOX_PIN = '90817263';
const SECOND_CLIENT_PIN = '71625348';

function sandboxConfigFile(folder: string): string {
	const file = path.join(folder, 'sandbox-config.json');
	fs.writeFileSync(file, JSON.stringify({ clients: [{ pin: SANDBOX_PIN }, { pin: SECOND_CLIENT_PIN }] }));
	return file;
}

const OWNER = { email: 'e2e-owner@example.com', password: 'E2e-owner-pass-1', firstName: 'E2E', lastName: 'Owner' };

async function main(): Promise<number> {
	const t0 = Date.now();
	const packDir = rt.builtPackDir(process.env.MONEY_PACK_DIR, REPO);

	say('# installing or reusing n8n and a Node that runs it (cached)...');
	const runtime = rt.ensureN8n();
	const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'money-e2e-n8n-'));
	const pack = rt.installPackedTarball(userFolder, packDir);
	say(`# pack ${pack.name}@${pack.version} installed from ${path.basename(pack.tarball)} with npm install in ${pack.nodesDir}`);

	const resources: { sandbox: SandboxHandle | null; n8n: rt.N8nHandle | null } = { sandbox: null, n8n: null };
	let failed = 0;
	let passed = 0;
	let keep = process.env.E2E_KEEP === '1';
	const cleanup = async () => {
		await Promise.allSettled([resources.n8n && resources.n8n.stop(), resources.sandbox && resources.sandbox.stop()]);
	};
	process.once('SIGINT', () => {
		say('# interrupted; stopping n8n and the sandbox');
		cleanup().finally(() => process.exit(130));
	});
	try {
		say('# starting the sandbox and n8n...');
		const [sandbox, n8n] = await Promise.all([
			startSandbox({ repoDir: REPO, logFile: path.join(userFolder, 'sandbox.log'), args: ['--config', sandboxConfigFile(userFolder)] }),
			rt.startN8n({ userFolder, owner: OWNER }),
		]);
		resources.sandbox = sandbox;
		resources.n8n = n8n;
		say(`# sandbox ${sandbox.info.baseUrl}, n8n ${n8n.url} (ready in ${n8n.startSeconds.toFixed(1)} s)`);

		const cred = { id: CREDENTIAL.id, name: CREDENTIAL.name, type: CREDENTIAL_TYPE, data: moneyCredentialFor(sandbox.info) };
		await rt.importJson('import:credentials', [cred], { env: n8n.env });
		const session = await rt.login(n8n.url, OWNER.email, OWNER.password);
		const apiKey = await rt.createApiKey(session, { label: 'e2e' });
		const api = rt.publicApi(n8n.url, apiKey);

		const ctx: E2eContext = {
			repo: REPO,
			pack,
			n8n,
			api,
			session,
			/** A line for the run's report (figures a check measured). */
			note(line) {
				say(`# ${line}`);
			},
			/** Stop n8n (kill -9 with `kill`) and start it again on the same port and database. */
			async restartN8n({ kill = false, env }: { kill?: boolean; env?: Record<string, string> } = {}) {
				const old = resources.n8n as rt.N8nHandle;
				if (kill) await old.kill();
				else await old.stop();
				resources.n8n = await rt.startN8n({ userFolder, owner: OWNER, port: old.port, env });
				const restarted = resources.n8n;
				ctx.n8n = restarted;
				ctx.session = await rt.login(restarted.url, OWNER.email, OWNER.password);
				say(`# n8n restarted (${kill ? 'after kill -9' : 'stopped'}) in ${restarted.startSeconds.toFixed(1)} s`);
			},
			freshN8n() {
				const folder = fs.mkdtempSync(path.join(userFolder, 'fresh-n8n-'));
				fs.cpSync(pack.nodesDir, path.join(folder, '.n8n', 'nodes'), { recursive: true });
				const env = rt.n8nEnv({ userFolder: folder, nodeBin: runtime.nodeBin, n8nDir: runtime.n8nDir });
				return {
					cli: (args, cliOpts = {}) => rt.n8nCli(args, { ...cliOpts, env: { ...env, ...(cliOpts.env || {}) } }),
					import: (command, value) => rt.importJson(command, value, { env }),
				};
			},
			sandbox: { info: sandbox.info, control: sandbox.control },
			output: rt.nodeOutput,
			/** Run a workflow with `n8n execute`, then read its execution from the public API. */
			async run(workflowId, { expectError = false } = {}) {
				const known = new Set((await api.listExecutions({ workflowId, includeData: false })).map((e) => String(e.id)));
				const cli = await (resources.n8n as rt.N8nHandle).cli(['execute', `--id=${workflowId}`, '--rawOutput'], { check: false });
				const execs = await api.waitForExecutions(workflowId, (ex) => ex.some((e) => !known.has(String(e.id))), { timeoutMs: 15_000 });
				const execution = execs.find((e) => !known.has(String(e.id))) as rt.Execution;
				const error = rt.executionError(execution);
				if (!expectError && (cli.code !== 0 || execution.status !== 'success')) {
					const why = error ? `${error.message}${error.description ? ` (${error.description})` : ''}` : (cli.stdout + cli.stderr).split('\n').slice(-15).join('\n');
					throw new Error(`workflow ${workflowId} failed (exit ${cli.code}, status ${execution.status}): ${why}`);
				}
				return { cli, execution, error, output: (nodeName, o) => rt.nodeOutput(execution, nodeName, o) || [] };
			},
		};
		const built = CASE_MODULES.map((module) => module.build(ctx));
		const workflows = built.flatMap((part) => part.workflows);
		// n8n 1.x saves a workflow's static data only when its id has at most 16 characters
		// (isWorkflowIdValid in n8n's utils): a trigger workflow with a longer id would test no memory there.
		const unsaved = workflows.filter((wf) => String(wf.id).length > 16 && (wf.nodes as rt.Json[]).some((node) => /^n8n-nodes-money\.money(Poll)?Trigger$/.test(String(node.type))));
		if (unsaved.length > 0) throw new Error(`trigger workflow ids longer than 16 characters (n8n 1.x never saves their static data): ${unsaved.map((wf) => wf.id).join(', ')}`);
		const allChecks = built.flatMap((part) => part.checks);
		const checks = [...allChecks.filter((check) => !check.runLast), ...allChecks.filter((check) => check.runLast)];
		// One import per credential id: case files may share one (test/e2e/rerun-tools.ts).
		const credentials = [...new Map(built.flatMap((part) => part.credentials || []).map((cred) => [cred.id, cred])).values()];
		if (credentials.length > 0) await rt.importJson('import:credentials', credentials, { env: n8n.env });
		await rt.importJson('import:workflow', workflows, { env: n8n.env });
		say(`# imported ${1 + credentials.length} credentials and ${workflows.length} workflows; running ${checks.length} checks`);
		await sandbox.control.resetCounters();

		const only = process.env.E2E_ONLY;
		// n8n 1.x runs the checks of what differs there (Check.onN8n1); E2E_ALL=1 runs every check.
		const everyCheck = !rt.n8nVersion().startsWith('1.') || process.env.E2E_ALL === '1';
		const onThisLine = checks.filter((check) => everyCheck || check.onN8n1);
		if (onThisLine.length < checks.length) say(`# n8n ${rt.n8nVersion()}: the ${onThisLine.length} checks of what differs on this line (the other ${checks.length - onThisLine.length} prove the pack's own logic, on 2.41; E2E_ALL=1 runs them here too)`);
		for (const check of onThisLine) {
			if (only && !only.split('|').some((part) => check.name.toLowerCase().includes(part.toLowerCase()))) continue;
			const t = Date.now();
			try {
				await withinLimit(check.fn(), check.limitMs ?? CHECK_LIMIT_MS);
				passed++;
				say(`ok - ${check.name} (${((Date.now() - t) / 1000).toFixed(1)} s)`);
			} catch (err) {
				failed++;
				say(`not ok - ${check.name}: ${oneLine(err)}`);
			}
		}
	} catch (err) {
		failed++;
		say(`not ok - setup: ${oneLine(err)}`);
	} finally {
		await cleanup();
	}
	if (failed > 0) keep = true;
	if (keep) say(`# n8n user folder kept for inspection: ${userFolder} (n8n.log, sandbox.log)`);
	else fs.rmSync(userFolder, { recursive: true, force: true });
	say(`# ${part ? `part ${part}, ` : ''}n8n ${rt.n8nVersion()} on Node ${runtime.nodeVersion} (${runtime.nodeSource === 'system' ? 'the Node running this' : 'the registry build'}, ${runtime.nodeBin}); total ${((Date.now() - t0) / 1000).toFixed(1)} s`);
	report(passed, failed);
	return failed === 0 ? 0 : 1;
}

/**
 * A check still running after this long fails, and the next one runs: a wait on something that
 * never ends (a request whose answer never comes, with no timer left to end it; seen once in CI,
 * the process idle with no socket or timer open) fails one check instead of holding the whole
 * tier until CI's limit. A check that waits out a documented delay (the backstop's grace period,
 * polls and restarts) or a load that is slow on a loaded machine sets its own `limitMs`.
 */
const CHECK_LIMIT_MS = Number(process.env.E2E_CHECK_LIMIT_MS || 600_000);

function withinLimit(run: Promise<void>, ms: number): Promise<void> {
	let timer: NodeJS.Timeout | undefined;
	const limit = new Promise<never>((_resolve, reject) => {
		timer = setTimeout(() => reject(new Error(`still running after ${ms / 1000} s: a wait that never ended; the n8n user folder is kept`)), ms);
	});
	return Promise.race([run, limit]).finally(() => clearTimeout(timer));
}

runMain(main);
