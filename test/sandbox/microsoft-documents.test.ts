import JSZip from 'jszip';
import { afterAll, describe, expect, it } from 'vitest';
import { documentContent } from '../../sandbox/microsoft/documents.ts';
import { buildTenant } from '../../sandbox/microsoft/seed.ts';
import { createDocumentReader } from '../../src/search/documents.ts';
import { EXTRACT_LIMITS } from '../../src/search/extract.ts';

const reader = createDocumentReader();
afterAll(() => reader.stop());

describe('Microsoft simulator file content', () => {
  it('text, CSV and JSON files are words; the same seed and label give the same bytes, another seed others', () => {
    const txt = documentContent('notes 1.txt', 7, 'd/1', 400).toString('utf8');
    expect(txt).toHaveLength(400);
    expect(txt).toMatch(/^[A-Z][a-z]+( [a-z]+)+/);
    expect(documentContent('notes 1.txt', 7, 'd/1', 400).equals(Buffer.from(txt))).toBe(true);
    expect(documentContent('notes 1.txt', 8, 'd/1', 400).toString('utf8')).not.toBe(txt);
    const csv = documentContent('export 2.csv', 7, 'd/2', 300).toString('utf8').split('\r\n');
    expect(csv[0]).toBe('id,item,owner,amount');
    expect(csv[1]).toMatch(/^1,[a-z]+,[a-z]+,\d+\.00$/);
    expect(JSON.parse(documentContent('Budget 3.json', 7, 'd/3', 200).toString('utf8'))).toMatchObject({
      title: 'Budget 3.json',
      body: expect.stringMatching(/[a-z]+ [a-z]+/),
    });
  });

  it('a .docx is a Word package whose text the search extractor reads', async () => {
    const bytes = documentContent('report 4.docx', 7, 'd/4', 600);
    const zip = await JSZip.loadAsync(bytes);
    expect(Object.keys(zip.files).sort()).toEqual(['[Content_Types].xml', '_rels/.rels', 'word/document.xml']);
    const text = await reader.text('docx', bytes, EXTRACT_LIMITS);
    const words = documentContent('same.txt', 7, 'd/4', 600).toString('utf8').split(/[ .]+/).filter(Boolean);
    expect(text).toBeTruthy();
    for (const w of words.slice(0, 20)) expect(text!.toLowerCase()).toContain(w.toLowerCase());
    expect(documentContent('report 4.docx', 7, 'd/4', 600).equals(bytes)).toBe(true);
  });

  it('a .pdf has pages whose text the search extractor reads', async () => {
    const bytes = documentContent('diagram 5.pdf', 7, 'd/5', 5000);
    expect(bytes.subarray(0, 8).toString('latin1')).toBe('%PDF-1.4');
    const text = await reader.text('pdf', bytes, EXTRACT_LIMITS);
    const words = documentContent('same.txt', 7, 'd/5', 5000).toString('utf8').split(/[ .]+/).filter(Boolean);
    expect(text).toBeTruthy();
    for (const w of [...words.slice(0, 10), ...words.slice(-10, -1)])
      expect(text!.toLowerCase()).toContain(w.toLowerCase());
  });

  it('the seeded tenant serves those documents and stays deterministic per seed', () => {
    const opts = {
      seed: 11,
      users: 2,
      usersWithoutDrive: 0,
      folderDepth: 1,
      foldersPerLevel: 1,
      filesPerFolder: 8,
      fileSize: 300,
    };
    const snapshot = (model: ReturnType<typeof buildTenant>) =>
      [...model.contents.entries()].map(([id, c]) => `${id}:${Buffer.from(c).toString('base64')}`).join('|');
    const a = buildTenant(opts);
    expect(snapshot(buildTenant(opts))).toBe(snapshot(a));
    const names = a.tenant.users.flatMap((u) => [...(u.drive?.items.values() ?? [])]).filter((i) => i.kind === 'file');
    const pdfs = names.filter((i) => i.name.endsWith('.pdf'));
    expect(pdfs.length + names.filter((i) => i.name.endsWith('.txt')).length).toBeGreaterThan(0);
    for (const f of names.filter((i) => /\.(pdf|docx|txt|csv)$/.test(i.name))) {
      const bytes = Buffer.from(a.contents.get(f.id) as Buffer);
      if (f.name.endsWith('.pdf')) expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      else if (f.name.endsWith('.docx')) expect(bytes.readUInt32LE(0)).toBe(0x04034b50);
      else expect(bytes.toString('utf8')).toMatch(/^[\x20-\x7e\r\n]+$/);
    }
  });
});
