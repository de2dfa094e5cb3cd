import type { ICredentialsDecrypted, IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { IDEMPOTENCY_HEADER, MONEY_API_CREDENTIAL_TYPE, PENDING_STATUS, REPLAY_HEADER, ROUTES, type TransactionResource } from '../../../api/values';
import { asNodeError, cancelledError, CREATE_OUTCOME_UNKNOWN, errorItemJson, type NodeError, notSent } from '../../../transport/errors';
import { headerValue } from '../../../transport/failures';
import { callSettingsOf, cancelSignalOf, type MoneyApiAnswer, moneyApiCall, moneyApiRequest, waitUnlessCancelled } from '../../../transport/request';
import { fieldError } from '../validation';
import { describeStop, Gate, walletFromAccount, type WalletBalance } from './gate';
import { apiClientOf, NodeMemory } from './memory';
import { classifyRefusal, durationText, minimumPacedDurationMs, pacingSettings, VelocityPacer } from './pacing';
import { pinForRequest } from './pin';
import { approvalOf, planOf } from './plan';
import { Preview } from './preview';
import { type CreateRow, identityAsGiven, identityOf, readRows } from './rows';
import { withFinalStatus } from './waitForFinal';

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

/**
 * The error of a create that an earlier attempt may have made (`earlier`: what that attempt got):
 * whatever this failure says, the API may hold it, so the error is not "not sent" and says the
 * money may have moved (docs/idempotency.md, "What `outcome` says").
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

/**
 * A charge or payout create run. Before any request: the node's memory begun (the lost-run verdict
 * first: a Retry reads it), every row read once with its key, the run's plan and Approved Plan, the
 * gate's run-level verdicts (the run's identity, its Business References, Check Balance First). Then each row as the router asks
 * for it: the gate, the send (paced, once under its key), the final status. Preview Only is this
 * run with a copy of the memory, a request that sends nothing and a clock that only advances.
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
	const keys = rows.map((row) => memory.keyOf(resource, row.businessReference, runIndex, row.itemIndex));
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
	const preview = previewSwitch === true ? new Preview(context, resource, settings, resource === 'payout' ? await readAccount() : undefined, defaultKeysKnown, plan) : undefined;
	const signal = cancelSignalOf(context);
	const pacer = new VelocityPacer({ ...settings.velocity });
	const counts = { created: 0, failed: 0, notAttempted: 0, waitedMs: 0 };
	const now = () => preview?.clock.at ?? Date.now();
	/** Set once a wait would pass Maximum Total Wait: no later row waits, none is sent. */
	let waitExhausted: string | undefined;
	/** The pacer counts sends of payout runs that wait, and of any run once a velocity refusal taught it. */
	let pacing = false;
	let started = false;
	let reported = 0;

	/** The PIN as the API takes it: RSA-encrypted when the credential has the client's public key (docs/decisions.md#d4), the same for every send under the key. */
	const pinFor = (row: CreateRow, key: string): string => {
		const data = credential?.data ?? {};
		try {
			return pinForRequest(row.pin, data.rsaPublicKey as string | undefined, key, data.hmacSecret as string | undefined);
		} catch {
			const description = 'Paste the PEM public key issued for this client (-----BEGIN PUBLIC KEY----- …), or leave the field empty to send the PIN unencrypted.';
			throw notSent(node, row.itemIndex, 'The RSA Public Key of the Money API credential cannot encrypt the PIN', description);
		}
	};

	/** The create request under its key: the Money API's, or a preview's that sends nothing. */
	const post = async (row: CreateRow, body: IDataObject, key: string, pin: string): Promise<MoneyApiAnswer> => {
		if (preview) return preview.answer(row, body);
		const { retry, timeoutMs } = row.call;
		const options = { body: { ...body, pin }, headers: { [IDEMPOTENCY_HEADER]: key }, itemIndex: row.itemIndex, retry, timeoutMs, credential, redact: [row.pin, pin] };
		return await moneyApiCall.call(context, 'POST', ROUTES[resource], options);
	};

	/** Waits for the velocity limit within Maximum Total Wait; past it, this and every later row is not sent. */
	const waitFor = async (row: CreateRow, waitMs: number): Promise<void> => {
		if (waitMs <= 0 && !waitExhausted) return;
		const rule = `${pacer.limit} per ${pacer.windowMs / 1000} s`;
		if (!waitExhausted && counts.waitedMs + waitMs > settings.maxTotalWaitMs) {
			waitExhausted = `waiting for the velocity limit (${rule}) would take this run past its Maximum Total Wait of ${settings.maxTotalWaitMs / 60_000} min (already waited ${Math.round(counts.waitedMs / 1000)} s)`;
		}
		if (waitExhausted) {
			const details = { velocity_limit: pacer.limit, velocity_window_seconds: pacer.windowMs / 1000, waited_seconds: Math.round(counts.waitedMs / 1000) };
			const description =
				'Nothing was sent for this item. Raise Maximum Total Wait (Options), split the run, or ask the Money API provider for a higher velocity limit; running the workflow again with Business References pays nobody twice.';
			throw notSent(node, row.itemIndex, `Not sent: ${waitExhausted}`, description, { error_code: null, details });
		}
		if (waitMs >= 1000 && !preview) announce(context, `Money ${resource} run: waiting ${Math.ceil(waitMs / 1000)} s for the velocity limit (${rule}) before item ${row.itemIndex + 1} of ${rows.length}`);
		if (preview) preview.clock.at += waitMs;
		else if (await waitUnlessCancelled(waitMs, signal)) {
			throw cancelledError(node, `The execution was cancelled while this ${resource} waited for the velocity limit; it was not sent`, { itemIndex: row.itemIndex, attempted: false });
		}
		counts.waitedMs += waitMs;
	};

	/**
	 * The request of one row, paced: a velocity refusal is waited out and the same body resent under
	 * the same key (On Velocity Limit: Wait); a cap or a balance too low stops the wallet's later
	 * rows. `unansweredAttempts` counts every attempt of this create that may have been carried out.
	 */
	const postPaced = async (row: CreateRow, body: IDataObject, key: string, pin: string, movedNow: (answer: MoneyApiAnswer) => boolean): Promise<MoneyApiAnswer> => {
		const waits = settings.onVelocityLimit === 'wait';
		const paced = waits && resource === 'payout';
		let unansweredBefore = 0;
		/** What the first attempt of this create that may have been carried out got, across the resends. */
		let firstUnanswered: unknown;
		try {
			for (;;) {
				if (paced) await waitFor(row, pacer.delayBeforeNext(now()));
				try {
					memory.sending(key, body);
					const answered = await post(row, body, key, pin);
					const answer = { ...answered, unansweredAttempts: unansweredBefore + answered.unansweredAttempts };
					if ((paced || pacing) && movedNow(answer)) pacer.recordSend(now());
					return answer;
				} catch (error) {
					const nodeError = asNodeError(node, error, row.itemIndex);
					const details = nodeError.context.details as IDataObject | undefined;
					const kind = classifyRefusal(nodeError.context.error_code, details);
					if (kind === 'velocity') {
						pacing = true;
						const wait = pacer.learnFromRefusal(details, now());
						if (!waits) throw nodeError;
						unansweredBefore += Number(nodeError.context.unansweredAttempts ?? 0);
						firstUnanswered ??= nodeError.context.unanswered;
						await waitFor(row, wait);
						continue;
					}
					if (kind !== 'other') {
						const stop = { kind, itemIndex: row.itemIndex, errorCode: String(nodeError.context.error_code), currency: String(body.currency), details: details ?? {} };
						gate.recordStop(body, stop);
						const later = rows.length - row.itemIndex - 1;
						if (!context.continueOnFail()) nodeError.message = `${nodeError.message}: ${describeStop(stop, body.amount as number)}; the run stopped here and ${later} later items were not attempted`;
						else nodeError.description = `${nodeError.description ?? ''} This cannot clear within the run: the remaining ${stop.currency} ${resource}s of this run from the same wallet fail without being sent.`.trim();
					}
					throw nodeError;
				}
			}
		} catch (error) {
			const nodeError = asNodeError(node, error, row.itemIndex);
			if (firstUnanswered !== undefined) nodeError.context.unanswered = firstUnanswered;
			if (unansweredBefore === 0) throw nodeError;
			nodeError.context.unansweredAttempts = unansweredBefore + Number(nodeError.context.unansweredAttempts ?? 0);
			throw mayHaveMoved(nodeError, `An earlier attempt of this ${resource} got no answer or a 5xx`);
		}
	};

	/**
	 * Sends a row once under its key (docs/idempotency.md), the memory updated before and after each
	 * request. `outcome` is `created` when the money moved in this run, also when the API answers from
	 * its record for an unacknowledged earlier send of this execution (`earlier_attempt` names it),
	 * `replayed` when the payment existed before this run. A row this execution's memory holds as
	 * acknowledged is not sent again: the acknowledgement is the memory's (an API whose idempotency
	 * records expire would make it again).
	 */
	const send = async (row: CreateRow, key: string, body: IDataObject, identity: IDataObject): Promise<IDataObject> => {
		const replayed = (answer: IDataObject) => ({ outcome: 'replayed', status: null, ...identity, ...answer, resource, idempotency_key: key });
		const acknowledged = memory.acknowledgement(key);
		if (acknowledged) return replayed(acknowledged);
		const pin = pinFor(row, key);
		const earlierAttempt = memory.uncertainAttempt(key);
		const sentBefore = memory.hasSent(key);
		const earlierEntry = memory.snapshot(key);
		const isReplay = (answer: MoneyApiAnswer) => headerValue(answer.headers, REPLAY_HEADER)?.toLowerCase() === 'true';
		try {
			const answer = await postPaced(row, body, key, pin, (answered) => !(isReplay(answered) && answered.unansweredAttempts === 0));
			const acknowledgement = { ...answer.body };
			delete acknowledgement.success;
			memory.accepted(key, acknowledgement);
			if (isReplay(answer) && earlierAttempt === undefined && (sentBefore || answer.unansweredAttempts === 0)) return replayed(acknowledgement);
			// An accepted create is PENDING (docs/decisions.md#d8-output).
			const { reference, ...rest } = acknowledgement;
			return { outcome: 'created', status: PENDING_STATUS, ...identity, reference, ...rest, resource, idempotency_key: key, ...(earlierAttempt ? { earlier_attempt: earlierAttempt } : {}) };
		} catch (error) {
			const nodeError = asNodeError(node, error, row.itemIndex);
			const { httpCode, unansweredAttempts, unanswered } = nodeError.context;
			if (nodeError.context.attempted !== false) {
				// The transport counts the attempts that may have been carried out and says what the first got; any other failure without an answer may have been.
				const noAnswer = httpCode === undefined || httpCode === null;
				const uncertain = typeof unansweredAttempts === 'number' ? unansweredAttempts > 0 : noAnswer || Number(httpCode) >= 500;
				const got = typeof unanswered === 'string' ? unanswered : noAnswer ? 'no answer' : `HTTP ${String(httpCode)}`;
				memory.failed(key, httpCode, uncertain ? `${got} in execution ${context.getExecutionId()}` : undefined, earlierEntry);
			}
			Object.assign(nodeError.context, { sent: identity, idempotency_key: key });
			throw nodeError;
		}
	};

	/**
	 * The row through the gate and the send; throws what the create throws, naming the row and its
	 * key. A row an earlier send of this execution may have made is never "not sent".
	 */
	const create = async (itemIndex: number): Promise<IDataObject> => {
		const row = rows[itemIndex];
		const key = keys[itemIndex];
		const earlier = memory.uncertainAttempt(key);
		const body = row.body && memory.bodyToSend(resource, key, row.body);
		const identity = body ? identityOf(resource, body, row.businessReference) : undefined;
		try {
			const refusal = gate.refusalOf(row, key);
			if (refusal || !body || !identity) throw refusal ?? row.error;
			if (!started && !preview && resource === 'payout' && settings.onVelocityLimit === 'wait' && rows.length > settings.velocity.limit) {
				const { limit, windowMs } = settings.velocity;
				announce(context, `Money payout run: ${rows.length} payouts at the velocity limit of ${limit} per ${windowMs / 1000} s take at least ${durationText(minimumPacedDurationMs(rows.length, settings.velocity))}`);
			}
			started = true;
			const held = gate.holdOf(row);
			if (held) {
				Object.assign(held.context, { sent: identity, idempotency_key: key });
				throw held;
			}
			gate.bind();
			if (!preview) return await send(row, key, body, identity);
			const moves = memory.isAccepted(key) ? false : earlier !== undefined ? 'maybe' : true;
			await send(row, key, body, identity);
			return preview.wouldSend(row, identity, key, moves);
		} catch (error) {
			const nodeError = asNodeError(node, error, itemIndex);
			throw earlier !== undefined ? mayHaveMoved(nodeError, `An earlier send of this ${resource} got no acknowledgement (${earlier})`) : nodeError;
		}
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

	return {
		failedJson(itemIndex, error) {
			const { idempotency_key: key, sent } = error.context;
			const identity = sent && typeof sent === 'object' && !Array.isArray(sent) ? (sent as IDataObject) : identityAsGiven(context, resource, rows[itemIndex]);
			const { error: message, ...rest } = errorItemJson(error);
			return { outcome: 'failed', error: message, ...identity, ...rest, idempotency_key: typeof key === 'string' ? key : null };
		},
		async execute(itemIndex) {
			const row = rows[itemIndex];
			if (typeof previewSwitch !== 'boolean' || row.preview !== previewSwitch) {
				const rule = `is one switch for the whole run: turn it on or off in the node, not from item data (it read ${JSON.stringify(row.preview)})`;
				throw fieldError(node, { parameter: 'preview', label: 'Preview Only', field: 'preview', rule }, itemIndex);
			}
			if (preview) {
				// A preview that cannot read its credential previews nothing: it fails as a whole, as the real run would.
				if (typeof client !== 'string') throw client;
				const refused = (error: unknown) => {
					const nodeError = asNodeError(node, error, itemIndex);
					return preview.wouldRefuse(row, nodeError, (nodeError.context.sent as IDataObject | undefined) ?? identityAsGiven(context, resource, row));
				};
				const json = preview.notReached(row, identityAsGiven(context, resource, row)) ?? (await create(itemIndex).catch(refused));
				return [{ json: { ...json, plan_id: plan.id, plan_row: plan.rows[itemIndex], preview: true } }];
			}
			try {
				const created = await create(itemIndex);
				counts.created++;
				return [{ json: await withFinalStatus(context, resource, created, row.options, { ...row.call, credential, itemIndex }) }];
			} catch (error) {
				const nodeError = asNodeError(node, error, itemIndex);
				if (nodeError.context.attempted === false) counts.notAttempted++;
				else counts.failed++;
				throw nodeError;
			} finally {
				progress(itemIndex + 1);
			}
		},
		finish() {
			for (const line of preview?.summary() ?? []) context.addExecutionHints({ message: line, location: 'outputPane' });
		},
	};
}
