import type { ICredentialsDecrypted, IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { IDEMPOTENCY_HEADER, listRoute, MONEY_API_CREDENTIAL_TYPE, PENDING_STATUS, REPLAY_HEADER, ROUTES, type TransactionResource } from '../../../api/values';
import { asNodeError, cancelledError, CREATE_OUTCOME_UNKNOWN, errorItemJson, isCancellation, type NodeError, notSent } from '../../../transport/errors';
import { headerValue } from '../../../transport/failures';
import { readWindow } from '../../../transport/listRead';
import { callSettingsOf, cancelSignalOf, type CreateOutcome, type MoneyApiAnswer, moneyApiCreate, moneyApiRequest, waitUnlessCancelled } from '../../../transport/request';
import { fieldError } from '../validation';
import { describeStop, Gate, walletFromAccount, type WalletBalance } from './gate';
import { isToolCall, Mandate, type MandateVerdict, movementOf, oneAtATime, toolCallAnchor } from './mandate';
import { apiClientOf, NodeMemory, type Prior, toolCallKey } from './memory';
import { classifyRefusal, durationText, minimumPacedDurationMs, pacingSettings, VelocityPacer } from './pacing';
import { pinForRequest } from './pin';
import { approvalOf, planOf } from './plan';
import { Preview } from './preview';
import { type CreateRow, readRows } from './rows';
import { withFinalStatus } from './waitForFinal';

/** What an agent reads beside a replayed payment. */
const TOOL_REPLAY_NOTE = 'No new payment was made: the Money API already holds this payment (its reference is above). A second identical payment needs a person.';

/** A progress line every this many items, and at the last one, on runs of at least that size. */
const PROGRESS_EVERY = 10;

/** What the router runs, item by item, for a create run prepared whole (docs/architecture.md, "A create, step by step"). */
export interface ItemRun {
	execute(itemIndex: number): Promise<INodeExecutionData[]>;
	/** A failed item: `outcome: "failed"`, whose payment it was, the error. */
	failedJson(itemIndex: number, error: NodeError): IDataObject;
	/** After the last item: what a preview found. */
	finish(): void;
}

/**
 * To n8n's log, and in a manual run to the editor's browser console: `sendMessageToUI` is the one
 * channel a node has to the editor, and n8n delivers it in manual mode only.
 */
export function announce(context: IExecuteFunctions, line: string): void {
	context.logger.info(line);
	if (context.getMode() === 'manual' && typeof context.sendMessageToUI === 'function') context.sendMessageToUI(line);
}

/** What a create run sends through and waits on: the Money API and the clock, or a preview's stand-ins (preview.ts). */
interface CreateIO {
	post(row: CreateRow, body: IDataObject, key: string, pin: string): Promise<CreateOutcome>;
	now(): number;
	/** Waits `ms`; true when the execution was stopped before or during the wait. */
	wait(ms: number): Promise<boolean>;
	announce(line: string): void;
}

/** One row of the run: its output item and the key it went under; or the error that is its item. */
type Created = { json: IDataObject; key: string } | { error: NodeError };

/** What a preview needs of the run it stands in for (preview.ts). */
interface RunParts {
	create(itemIndex: number): Promise<Created>;
	failedJson(itemIndex: number, error: NodeError): IDataObject;
	/** Why no row of the run can start (its credential could not be read). */
	runFailure?: NodeError;
	rows: CreateRow[];
}

/**
 * The one place that says money may have moved for a row the API may hold (docs/idempotency.md,
 * "What `outcome` says"): an earlier send of this execution got no acknowledgement (`earlier`), or
 * an attempt of this send may have been carried out. Whatever else the error says, it is not
 * "not sent".
 */
function mayHaveMoved(error: NodeError, earlier: string): NodeError {
	const notSentNow = error.context.attempted === false;
	delete error.context.attempted;
	if (!String(error.description ?? '').includes(CREATE_OUTCOME_UNKNOWN)) {
		const again = notSentNow ? ' (this time it was not sent again)' : '';
		error.description = `${notSentNow ? '' : `${error.description ?? ''} `}${earlier}${again}. ${CREATE_OUTCOME_UNKNOWN}`.trim();
	}
	return error;
}

const isReplay = (answer: MoneyApiAnswer) => headerValue(answer.headers, REPLAY_HEADER)?.toLowerCase() === 'true';

/**
 * A preview's items: each row as the run would send or refuse it, with its plan row; the counts and
 * totals above the output once the last row is previewed. A preview that cannot read its
 * credential previews nothing: it fails as a whole, as the real run would.
 */
function previewRun(preview: Preview, parts: RunParts): ItemRun {
	return {
		failedJson: parts.failedJson,
		execute: async (itemIndex) => {
			if (parts.runFailure) throw parts.runFailure;
			const row = parts.rows[itemIndex];
			let json = preview.notReached(row);
			if (!json) {
				const created = await parts.create(itemIndex);
				if ('error' in created) json = preview.wouldRefuse(row, created.error);
				else json = preview.wouldSend(row, created.key, created.json.outcome === 'replayed' ? false : created.json.earlier_attempt !== undefined ? 'maybe' : true);
			}
			return [{ json: { ...json, ...preview.planOf(itemIndex), preview: true } }];
		},
		finish: () => preview.finish(),
	};
}

/**
 * A charge or payout create run. Before any request: the node's memory begun (the lost-run verdict
 * first: a Retry reads it), every row read once with its key, the run's plan and Approved Plan, the
 * gate's run-level verdicts (the run's identity, its Business References, Check Balance First). Then
 * each row as the router asks for it: its memory read once, the gate, the send (paced, once under
 * its key, held as unanswered until its outcome is recorded), the final status. Preview Only is this run with a copy of
 * the memory and the Preview as its IO: a request that sends nothing and a clock that only advances.
 */
export async function startCreateRun(context: IExecuteFunctions, resource: TransactionResource): Promise<ItemRun> {
	const node = context.getNode();
	const kept = NodeMemory.of(context);
	const replaysLostRun = kept.recordLostRun(context);
	const previewSwitch = context.getNodeParameter('preview', 0, false);
	let credential: ICredentialsDecrypted | undefined;
	let client: string | NodeError;
	try {
		// Read once: every create, resend and read of the run goes to this API client, whatever the credential says by then.
		const data = await context.getCredentials(MONEY_API_CREDENTIAL_TYPE);
		const named = node.credentials?.[MONEY_API_CREDENTIAL_TYPE];
		credential = { id: named?.id ?? '', name: named?.name ?? '', type: MONEY_API_CREDENTIAL_TYPE, data };
		client = apiClientOf(data);
	} catch (error) {
		client = asNodeError(node, error, 0);
	}
	// Item 1's Options set the run's pacing and checks: the run cannot start without them.
	let runOptions: IDataObject = {};
	try {
		runOptions = context.getNodeParameter('options', 0, {}) as IDataObject;
	} catch (error) {
		if (typeof client === 'string') client = asNodeError(node, error, 0);
	}
	const rows = await readRows(context, resource, credential?.data ?? {});
	const memory = previewSwitch === true ? kept.copy() : kept;
	const defaultKeysKnown = kept.hasAnchor;
	memory.makeAnchor();
	const runIndex = context.getWorkflowDataProxy(0).$thisRunIndex;
	const tool = isToolCall(context);
	const keyOf = (row: CreateRow, businessReference: string, itemIndex: number) =>
		tool && businessReference === '' && row.body ? toolCallKey(toolCallAnchor(context), resource, movementOf(resource, row.body)) : memory.keyOf(resource, businessReference, runIndex, itemIndex);
	const keys = rows.map((row) => keyOf(row, row.businessReference, row.itemIndex));
	// The key each row went under in the first run of this run index: another when a Retry maps another Business Reference (the gate refuses that run).
	const firstReferences = memory.firstIdentity(runIndex)?.references ?? {};
	const firstKeys = rows.map((row, index) => {
		const was = firstReferences[index];
		return was === undefined || was === (row.businessReference || null) ? keys[index] : keyOf(row, was ?? '', index);
	});
	const plan = planOf(resource, typeof client === 'string' ? client : '', rows, keys);
	const approval = typeof client === 'string' ? approvalOf(context, resource, plan, rows, memory.firstIdentity(runIndex)?.approvedPlan) : {};
	const gate = new Gate(context, resource, rows, memory, typeof client === 'string' ? client : '', typeof client === 'string' ? approval.refusal : client, replaysLostRun, approval.approved);
	const settings = pacingSettings(resource, runOptions, credential?.data ?? {});
	let account: Promise<WalletBalance | string> | undefined;
	const readAccount = async () =>
		await (account ??= moneyApiRequest
			.call(context, 'GET', ROUTES.account, { ...callSettingsOf(runOptions), credential })
			.then((answer) => walletFromAccount(answer) ?? 'the account answer carried no balance')
			.catch((error: Error) => `the account could not be read (${error.message})`));
	if (resource === 'payout' && settings.checkBalanceFirst && typeof previewSwitch === 'boolean') await gate.checkBalance(rows, keys, readAccount);
	const signal = cancelSignalOf(context);
	const readSince = async (since: string, itemIndex: number) => {
		const words = { transactions: `${resource}s`, window: 'in the last 24 hours' };
		return (await readWindow.call(context, listRoute(resource), {}, { start: since, end: null }, words, { itemIndex, ...callSettingsOf(runOptions), credential })).envelopes;
	};
	const mandate = tool && previewSwitch !== true ? new Mandate(context, resource, readSince) : undefined;
	const preview = previewSwitch === true ? new Preview(context, resource, settings, resource === 'payout' ? await readAccount() : undefined, defaultKeysKnown, plan) : undefined;
	const io: CreateIO = preview ?? {
		post: async (row, body, key, pin) =>
			await moneyApiCreate.call(context, ROUTES[resource], { body: { ...body, pin }, headers: { [IDEMPOTENCY_HEADER]: key }, itemIndex: row.itemIndex, ...row.call, credential, redact: [row.pin, pin] }),
		now: () => Date.now(),
		wait: async (ms) => await waitUnlessCancelled(ms, signal),
		announce: (line) => announce(context, line),
	};
	const pacer = new VelocityPacer({ ...settings.velocity });
	const counts = { created: 0, failed: 0, notAttempted: 0, waitedMs: 0 };
	/** Set once a wait would pass Maximum Total Wait: no later row waits, none is sent. */
	let waitExhausted: string | undefined;
	/** The pacer counts sends of payout runs that wait, and of any run once a velocity refusal taught it. */
	let pacing = false;
	let started = false;
	let reported = 0;

	/** The PIN as the API takes it: RSA-encrypted when the credential has the client's public key (docs/decisions.md#d4), the same for every send under the key. */
	const pinFor = (row: CreateRow, key: string): string | NodeError => {
		const data = credential?.data ?? {};
		try {
			return pinForRequest(row.pin, data.rsaPublicKey as string | undefined, key, data.hmacSecret as string | undefined);
		} catch {
			const description = 'Paste the PEM public key issued for this client (-----BEGIN PUBLIC KEY----- …), or leave the field empty to send the PIN unencrypted.';
			return notSent(node, row.itemIndex, 'The RSA Public Key of the Money API credential cannot encrypt the PIN', description);
		}
	};

	/** Waits for the velocity limit within Maximum Total Wait; past it, this and every later row is not sent (the error says why). */
	const waitFor = async (row: CreateRow, waitMs: number): Promise<NodeError | undefined> => {
		if (waitMs <= 0 && !waitExhausted) return undefined;
		const rule = `${pacer.limit} per ${pacer.windowMs / 1000} s`;
		if (!waitExhausted && counts.waitedMs + waitMs > settings.maxTotalWaitMs) {
			waitExhausted = `waiting for the velocity limit (${rule}) would take this run past its Maximum Total Wait of ${settings.maxTotalWaitMs / 60_000} min (already waited ${Math.round(counts.waitedMs / 1000)} s)`;
		}
		if (waitExhausted) {
			const details = { velocity_limit: pacer.limit, velocity_window_seconds: pacer.windowMs / 1000, waited_seconds: Math.round(counts.waitedMs / 1000) };
			const description =
				'Nothing was sent for this item. Raise Maximum Total Wait (Options), split the run, or ask the Money API provider for a higher velocity limit; running the workflow again with Business References pays nobody twice.';
			return notSent(node, row.itemIndex, `Not sent: ${waitExhausted}`, description, { error_code: null, details });
		}
		if (waitMs >= 1000) io.announce(`Money ${resource} run: waiting ${Math.ceil(waitMs / 1000)} s for the velocity limit (${rule}) before item ${row.itemIndex + 1} of ${rows.length}`);
		if (await io.wait(waitMs)) {
			return cancelledError(node, `The execution was cancelled while this ${resource} waited for the velocity limit; it was not sent`, { itemIndex: row.itemIndex, attempted: false });
		}
		counts.waitedMs += waitMs;
		return undefined;
	};

	/**
	 * The request of one row, paced: a velocity refusal is waited out and the same body resent under
	 * the same key (On Velocity Limit: Wait); a cap or a balance too low stops the wallet's later
	 * rows. The outcome is unknown when any attempt, across the resends, may have been carried out.
	 */
	const postPaced = async (row: CreateRow, body: IDataObject, key: string, pin: string, prior: Prior, underWay: { now: boolean }): Promise<CreateOutcome> => {
		const waits = settings.onVelocityLimit === 'wait';
		const paced = waits && resource === 'payout';
		/** What the first attempt that may have been carried out got, across the resends. */
		let unanswered: string | undefined;
		const ended = (outcome: CreateOutcome): CreateOutcome => {
			if (unanswered === undefined) return outcome;
			if (outcome.kind === 'accepted') return { kind: 'accepted', answer: { ...outcome.answer, unanswered } };
			return { kind: 'unknown', error: mayHaveMoved(outcome.error, `An earlier attempt of this ${resource} got no answer or a 5xx`), unanswered };
		};
		for (;;) {
			const held = paced ? await waitFor(row, pacer.delayBeforeNext(io.now())) : undefined;
			if (held) return ended({ kind: 'refused', error: held });
			if (!underWay.now) memory.sending(key, body, prior, `no answer in execution ${context.getExecutionId()}`);
			underWay.now = true;
			const outcome = await io.post(row, body, key, pin);
			unanswered ??= outcome.kind === 'accepted' ? outcome.answer.unanswered : outcome.kind === 'unknown' ? outcome.unanswered : undefined;
			if (outcome.kind === 'accepted') {
				if ((paced || pacing) && (!isReplay(outcome.answer) || unanswered !== undefined)) pacer.recordSend(io.now());
				return ended(outcome);
			}
			const { error } = outcome;
			const details = error.context.details as IDataObject | undefined;
			const kind = classifyRefusal(error.context.error_code, details);
			if (kind === 'velocity') {
				pacing = true;
				const wait = pacer.learnFromRefusal(details, io.now());
				if (!waits) return ended(outcome);
				const stopped = await waitFor(row, wait);
				if (stopped) return ended({ kind: 'refused', error: stopped });
				continue;
			}
			if (kind !== 'other') {
				const stop = { kind, itemIndex: row.itemIndex, errorCode: String(error.context.error_code), currency: String(body.currency), details: details ?? {} };
				gate.recordStop(body, stop);
				const later = rows.length - row.itemIndex - 1;
				if (!context.continueOnFail()) error.message = `${error.message}: ${describeStop(stop, body.amount as number)}; the run stopped here and ${later} later items were not attempted`;
				else error.description = `${error.description ?? ''} This cannot clear within the run: the remaining ${stop.currency} ${resource}s of this run from the same wallet fail without being sent.`.trim();
			}
			return ended(outcome);
		}
	};

	/**
	 * A row through the gate and the send (docs/idempotency.md): its memory read once (`prior`), held
	 * as unanswered from its first request, its outcome recorded. `outcome` is `created` when the money moved in this run, also when the API
	 * answers from its record for an unacknowledged earlier send of this execution (`earlier_attempt`
	 * names it), `replayed` when the payment existed before this run. A row this execution's memory
	 * holds as acknowledged is not sent again: the acknowledgement is the memory's (an API whose
	 * idempotency records expire would make it again).
	 */
	const createRow = async (row: CreateRow, key: string, prior: Prior, underWay: { now: boolean }): Promise<Created> => {
		const { body } = prior;
		const { identity } = row;
		const replayed = (acknowledgement: IDataObject): Created => ({ json: { outcome: 'replayed', status: null, ...identity, ...acknowledgement, resource, idempotency_key: key, ...(tool ? { note: TOOL_REPLAY_NOTE } : {}) }, key });
		// Paid in this execution with the same movement: what stops the run's other rows does not stop this one from saying so.
		// An agent's call without a Business Reference is keyed by its payment: under its key only the way a party is written can differ.
		const sameMovement = prior.changes.length === 0 || (tool && row.businessReference === '');
		if (prior.acknowledged && body && sameMovement && key === firstKeys[row.itemIndex]) return replayed(prior.acknowledged);
		const refusal = switchRefusal(row) ?? gate.refusalOf(row, key, prior);
		if (refusal || !body) return { error: refusal ?? (row.error as NodeError) };
		let sent = body;
		let agent: { mandate: MandateVerdict } | undefined;
		// A resend of the body first sent under the key goes as first decided: it cannot pay twice, and its tags were set then.
		const asFirstSent = prior.uncertain !== undefined && prior.firstBody;
		if (mandate && !asFirstSent) {
			const decided = await mandate.decide(row.itemIndex, key, body, io.now(), prior.uncertain !== undefined);
			if ('error' in decided) return decided;
			agent = { mandate: decided.verdict };
			sent = decided.body;
		}
		const failed = (error: NodeError): Created => {
			error.context.idempotency_key = key;
			return { error };
		};
		if (!started && resource === 'payout' && settings.onVelocityLimit === 'wait' && rows.length > settings.velocity.limit) {
			const { limit, windowMs } = settings.velocity;
			io.announce(`Money payout run: ${rows.length} payouts at the velocity limit of ${limit} per ${windowMs / 1000} s take at least ${durationText(minimumPacedDurationMs(rows.length, settings.velocity))}`);
		}
		started = true;
		const notSentNow = (error: NodeError): Created => {
			mandate?.record(key, 'refused');
			return failed(error);
		};
		const held = gate.holdOf(row);
		if (held) return notSentNow(held);
		gate.bind();
		const pin = pinFor(row, key);
		if (typeof pin !== 'string') return notSentNow(pin);
		const outcome = await postPaced(row, sent, key, pin, prior, underWay);
		underWay.now = false;
		if (outcome.kind !== 'accepted') {
			memory.record(key, sent, outcome.kind === 'unknown' ? { uncertain: `${outcome.unanswered} in execution ${context.getExecutionId()}` } : 'refused', prior);
			mandate?.record(key, outcome.kind === 'unknown' ? 'uncertain' : 'refused');
			return failed(outcome.error);
		}
		const acknowledgement = { ...outcome.answer.body };
		delete acknowledgement.success;
		memory.record(key, sent, { accepted: acknowledgement }, prior);
		mandate?.record(key, 'accepted', String(acknowledgement.reference));
		if (isReplay(outcome.answer) && prior.uncertain === undefined && outcome.answer.unanswered === undefined) return replayed(acknowledgement);
		// An accepted create is PENDING (docs/decisions.md#d8-output).
		const { reference, ...rest } = acknowledgement;
		const earlier = prior.uncertain ? { earlier_attempt: prior.uncertain } : {};
		return { json: { outcome: 'created', status: PENDING_STATUS, ...identity, reference, ...rest, resource, idempotency_key: key, ...earlier, ...agent }, key };
	};

	/**
	 * A row's one result: what it made, or the error that is its item. A row an earlier send of this
	 * execution may have made, or one whose request went out before something failed, is never "not
	 * sent": the memory holds such a send as unanswered until its outcome is recorded.
	 */
	const create = async (itemIndex: number): Promise<Created> => (tool ? await oneAtATime(context, async () => await createOnce(itemIndex)) : await createOnce(itemIndex));

	const createOnce = async (itemIndex: number): Promise<Created> => {
		const row = rows[itemIndex];
		const prior = memory.prior(resource, keys[itemIndex], row.body);
		const underWay = { now: false };
		let created: Created;
		try {
			created = await createRow(row, keys[itemIndex], prior, underWay);
		} catch (error) {
			created = { error: asNodeError(node, error, itemIndex) };
			mandate?.record(keys[itemIndex], underWay.now ? 'uncertain' : 'refused');
		}
		if (!('error' in created)) return created;
		if (underWay.now && prior.uncertain === undefined) mayHaveMoved(created.error, `This ${resource} was sent and what became of it is not known`);
		else settle(created.error, itemIndex, firstKeys[itemIndex] === keys[itemIndex] ? prior : undefined);
		// An agent reads only the message (docs/agents.md): it must not take an unknown outcome for a refusal and pay another way.
		if (tool && String(created.error.description ?? '').includes(CREATE_OUTCOME_UNKNOWN)) {
			created.error.message = `The ${resource} may have been made, its outcome is unknown (${created.error.message}); it counts as spent. Do not call again for it; tell the user to check it with a person.`;
			context.logger.warn(`Money tool: ${created.error.message}`);
		}
		return created;
	};

	/**
	 * The error of a row an earlier run of this execution sent, under the key it had then: one that
	 * may have been made says the money may have moved; one paid with the same movement says so
	 * (not "not sent"). `prior`: the memory already read under that key.
	 */
	const settle = (error: NodeError, itemIndex: number, prior = memory.prior(resource, firstKeys[itemIndex], rows[itemIndex].body)): void => {
		if (prior.uncertain !== undefined) mayHaveMoved(error, `An earlier send of this ${resource} got no acknowledgement (${prior.uncertain})`);
		else if (prior.acknowledged && prior.changes.length === 0 && error.context.attempted === false) {
			delete error.context.attempted;
			error.description = `${error.description ?? ''} It was not sent again: an earlier run of this execution paid it (reference ${String(prior.acknowledged.reference)}).`.trim();
		}
	};

	/** Preview Only is one switch for the whole run, read from item 1. */
	const switchRefusal = (row: CreateRow): NodeError | undefined => {
		if (typeof previewSwitch === 'boolean' && row.preview === previewSwitch) return undefined;
		const rule = `is one switch for the whole run: turn it on or off in the node, not from item data (it read ${JSON.stringify(row.preview)})`;
		return fieldError(node, { parameter: 'preview', label: 'Preview Only', field: 'preview', rule }, row.itemIndex);
	};

	const progress = (done: number) => {
		const { created, failed, notAttempted, waitedMs } = counts;
		const skipped = notAttempted > 0 ? `, ${notAttempted} not attempted` : '';
		const line = `Money ${resource} run: ${done} of ${rows.length} items done (${created} sent, ${failed} failed${skipped})${waitedMs > 0 ? `; waited ${Math.round(waitedMs / 1000)} s for the velocity limit` : ''}`;
		if (done === rows.length && (rows.length >= PROGRESS_EVERY || waitedMs > 0)) context.addExecutionHints({ message: line, location: 'outputPane' });
		if (rows.length < PROGRESS_EVERY || done <= reported) return;
		if (done !== rows.length && Math.floor(done / PROGRESS_EVERY) <= Math.floor(reported / PROGRESS_EVERY)) return;
		reported = done;
		announce(context, line);
	};

	const parts: RunParts = {
		create,
		failedJson(itemIndex, error) {
			// A row the router never reached in a stopped execution.
			if (isCancellation(error) && error.context.attempted === false) settle(error, itemIndex);
			const key = error.context.idempotency_key;
			const { error: message, ...rest } = errorItemJson(error);
			return { outcome: 'failed', error: message, ...rows[itemIndex].identity, ...rest, idempotency_key: typeof key === 'string' ? key : null };
		},
		...(typeof client !== 'string' ? { runFailure: client } : {}),
		rows,
	};
	if (preview) return previewRun(preview, parts);
	return {
		failedJson: parts.failedJson,
		async execute(itemIndex) {
			try {
				const created = await create(itemIndex);
				if ('error' in created) {
					if (created.error.context.attempted === false) counts.notAttempted++;
					else counts.failed++;
					throw created.error;
				}
				counts.created++;
				return [{ json: await withFinalStatus(context, resource, created.json, rows[itemIndex].options, { ...rows[itemIndex].call, credential, itemIndex }) }];
			} finally {
				progress(itemIndex + 1);
			}
		},
		finish: () => undefined,
	};
}
