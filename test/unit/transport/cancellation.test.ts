import type { INode } from 'n8n-workflow';

import { cancelledError, cancelSignalOf, isCancellation, waitUnlessCancelled } from '../../../nodes/transport/cancellation';

const node: INode = { id: 'n1', name: 'Money', type: 'n8n-nodes-money.money', typeVersion: 1, position: [0, 0], parameters: {} };

describe('waitUnlessCancelled', () => {
	// n8n 1.x's sleep: resolves at the end of the wait whatever the signal says.
	const sleepIgnoringSignal = async (ms: number) => await new Promise<void>((resolve) => setTimeout(resolve, ms));
	// n8n 2.x's sleep: rejects with the abort reason as soon as the signal aborts.
	const sleepHonouringSignal = async (ms: number, signal?: AbortSignal) =>
		await new Promise<void>((resolve, reject) => {
			const timer = setTimeout(resolve, ms);
			signal?.addEventListener('abort', () => {
				clearTimeout(timer);
				reject(new Error('This operation was aborted'));
			});
		});

	it('says "cancelled" after the wait when the execution was cancelled during it, as n8n 1.x cannot abort the wait', async () => {
		const controller = new AbortController();
		setTimeout(() => controller.abort(), 5);
		await expect(waitUnlessCancelled(30, controller.signal, sleepIgnoringSignal)).resolves.toBe(true);
	});

	it('says "cancelled" at once when n8n 2.x aborts the wait, instead of throwing its abort error', async () => {
		const controller = new AbortController();
		setTimeout(() => controller.abort(), 5);
		const started = Date.now();
		await expect(waitUnlessCancelled(10_000, controller.signal, sleepHonouringSignal)).resolves.toBe(true);
		expect(Date.now() - started).toBeLessThan(5_000);
	});

	it('does not wait at all once cancelled', async () => {
		const controller = new AbortController();
		controller.abort();
		const wait = jest.fn(sleepIgnoringSignal);
		await expect(waitUnlessCancelled(10_000, controller.signal, wait)).resolves.toBe(true);
		expect(wait).not.toHaveBeenCalled();
	});

	it('just waits when nothing was cancelled, with or without a signal; another failure of the wait is thrown', async () => {
		await expect(waitUnlessCancelled(1, new AbortController().signal, sleepIgnoringSignal)).resolves.toBe(false);
		await expect(waitUnlessCancelled(1, undefined)).resolves.toBe(false);
		await expect(waitUnlessCancelled(1, undefined, async () => await Promise.reject(new Error('timer broke')))).rejects.toThrow('timer broke');
	});
});

describe('cancelledError', () => {
	it('marks the error cancelled, and attempted: false only when nothing went out', () => {
		const unsent = cancelledError(node, 'not sent', { itemIndex: 2, attempted: false });
		expect(unsent.context).toMatchObject({ cancelled: true, attempted: false, itemIndex: 2 });
		expect(isCancellation(unsent)).toBe(true);
		const underWay = cancelledError(node, 'cut off', { attempted: true });
		expect(underWay.context.attempted).toBeUndefined();
		expect(underWay.description).toMatch(/may have reached the Money API/);
		expect(isCancellation(new Error('x'))).toBe(false);
		expect(isCancellation(undefined)).toBe(false);
	});

	it('reads the signal of contexts that have one, and none of those that do not', () => {
		const signal = new AbortController().signal;
		expect(cancelSignalOf({ getExecutionCancelSignal: () => signal })).toBe(signal);
		expect(cancelSignalOf({})).toBeUndefined();
	});
});
