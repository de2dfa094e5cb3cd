/** Loopback ports, process groups the scripts start, and their memory. */

import * as fs from 'node:fs';
import * as net from 'node:net';
import type { ChildProcess } from 'node:child_process';

/** A free TCP port on 127.0.0.1 (the OS picks it). */
export function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const srv = net.createServer();
		srv.unref();
		srv.on('error', reject);
		srv.listen(0, '127.0.0.1', () => {
			const { port } = srv.address() as net.AddressInfo;
			srv.close(() => resolve(port));
		});
	});
}

/** Whether `port` on 127.0.0.1 can be listened on. */
export function portFree(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const srv = net.createServer();
		srv.once('error', () => resolve(false));
		srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
	});
}

/** Whether something accepts connections on `port` of 127.0.0.1. */
export function canConnect(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const socket = net.connect(port, '127.0.0.1');
		socket.once('connect', () => {
			socket.destroy();
			resolve(true);
		});
		socket.once('error', () => resolve(false));
	});
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

/** Remember a detached child so that it is killed, with its process group, if this process exits first. */
export function track(child: ChildProcess): void {
	live.add(child);
	child.once('exit', () => live.delete(child));
	if (!exitHookInstalled) {
		exitHookInstalled = true;
		// Last resort: never leave an n8n (and its task runner) behind when the caller dies.
		process.once('exit', () => {
			for (const c of live) killGroup(c, 'SIGKILL');
		});
	}
}

/** Signal a detached child's process group (the child leads it), or the child alone. */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
	if (child.exitCode !== null || child.signalCode !== null) return;
	try {
		process.kill(-(child.pid as number), signal); // the child leads its own process group (detached)
	} catch {
		try {
			child.kill(signal);
		} catch {
			/* gone */
		}
	}
}

export interface ProcessMemory {
	totalKb: number;
	processes: Array<{ pid: number; rssKb: number; cmd: string }>;
}

/** Resident memory (KB) of a process and its descendants, from /proc. */
export function processTreeRssKb(pid: number): ProcessMemory {
	const children = new Map<number, number[]>();
	for (const d of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(d)) continue;
		try {
			const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
			const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
			if (!children.has(ppid)) children.set(ppid, []);
			children.get(ppid)!.push(Number(d));
		} catch {
			/* gone */
		}
	}
	const result: ProcessMemory['processes'] = [];
	const walk = (p: number): void => {
		try {
			const status = fs.readFileSync(`/proc/${p}/status`, 'utf8');
			const rss = Number((status.match(/VmRSS:\s+(\d+)/) || [])[1] || 0);
			const cmd = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').join(' ').trim();
			result.push({ pid: p, rssKb: rss, cmd });
		} catch {
			return;
		}
		for (const c of children.get(p) || []) walk(c);
	};
	walk(pid);
	return { totalKb: result.reduce((s, r) => s + r.rssKb, 0), processes: result };
}
