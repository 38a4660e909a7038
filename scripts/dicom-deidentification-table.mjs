// Writes apps/server/src/dicom/deidentify/profile-table.ts from DICOM PS3.15 Table E.1-1
// (Application Level Confidentiality Profile Attributes), taken as data from the standard itself.
//
//   node scripts/dicom-deidentification-table.mjs <part15.xml> [edition]
//   e.g. curl -LO https://dicom.nema.org/medical/dicom/2025e/source/docbook/part15/part15.xml
//        node scripts/dicom-deidentification-table.mjs part15.xml
//
// <part15.xml> is the standard's own DocBook source of PS3.15 for an edition; the edition is read
// from its subtitle ("DICOM PS3.15 2025e - ..."). The table is found by its id (table_E.1-1) and its
// columns by their headings, so a reordered or added column is caught rather than misread.
// A JSON array of rows in the shape the innolitics `dicom-standard` project extracts from the
// standard's HTML (`confidentiality_profile_attributes.json`) is accepted too; then the edition
// must be given:
//   { "name": "Accession Number", "tag": "(0008,0050)", "basicProfile": "Z",
//     "rtnLongModifDatesOpt": "C", "cleanDescOpt": "C", ... }
// Each column of the standard's table is one key; an empty cell is an absent key. The script checks
// every action code against the codes PS3.15 E.1.1 defines and refuses anything else, so a change
// of the table's shape in a later edition stops the build of the table instead of passing silently.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const [source, editionArg] = process.argv.slice(2);
if (!source || (editionArg !== undefined && !/^\d{4}[a-e]$/.test(editionArg))) {
  console.error(
    'usage: node scripts/dicom-deidentification-table.mjs <part15.xml | table.json> [edition, e.g. 2025e]',
  );
  process.exit(2);
}

/** The standard's option columns, in the table's order, under the names our engine uses. */
const OPTION_COLUMNS = {
  rtnSafePrivOpt: 'retainSafePrivate',
  rtnUIDsOpt: 'retainUids',
  rtnDevIdOpt: 'retainDeviceIdentity',
  rtnInstIdOpt: 'retainInstitutionIdentity',
  rtnPatCharsOpt: 'retainPatientCharacteristics',
  rtnLongFullDatesOpt: 'retainLongitudinalFullDates',
  rtnLongModifDatesOpt: 'retainLongitudinalModifiedDates',
  cleanDescOpt: 'cleanDescriptors',
  cleanStructContOpt: 'cleanStructuredContent',
  cleanGraphOpt: 'cleanGraphics',
};
/** PS3.15 E.1.1: D, Z, X, K, C, U and the IOD-dependent combinations of them. */
const ACTIONS = new Set(['D', 'Z', 'X', 'K', 'C', 'U', 'Z/D', 'X/Z', 'X/D', 'X/Z/D', 'X/Z/U*']);

/** The DocBook table's column headings, in the standard's words, under the JSON rows' keys. */
const DOCBOOK_HEADINGS = {
  'Attribute Name': 'name',
  Tag: 'tag',
  'Retd.': 'retired',
  'In Std. Comp. IOD': 'stdCompIOD',
  'Basic Prof.': 'basicProfile',
  'Rtn. Safe Priv. Opt.': 'rtnSafePrivOpt',
  'Rtn. UIDs Opt.': 'rtnUIDsOpt',
  'Rtn. Dev. Id. Opt.': 'rtnDevIdOpt',
  'Rtn. Inst. Id. Opt.': 'rtnInstIdOpt',
  'Rtn. Pat. Chars. Opt.': 'rtnPatCharsOpt',
  'Rtn. Long. Full Dates Opt.': 'rtnLongFullDatesOpt',
  'Rtn. Long. Modif. Dates Opt.': 'rtnLongModifDatesOpt',
  'Clean Desc. Opt.': 'cleanDescOpt',
  'Clean Struct. Cont. Opt.': 'cleanStructContOpt',
  'Clean Graph. Opt.': 'cleanGraphOpt',
};

/** A table cell's text: tags dropped, entities decoded, zero-width and other white space collapsed. */
function cellText(xml) {
  return (
    xml
      .replace(/<[^>]*>/g, ' ')
      .replace(/&#x([0-9a-f]+);/gi, (_, h) => String.fromCodePoint(parseInt(h, 16)))
      .replace(/&#(\d+);/g, (_, d) => String.fromCodePoint(Number(d)))
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&apos;/g, "'")
      .replace(/&amp;/g, '&')
      // The source breaks some long names with zero-width spaces ("GPS Latitude\u200b Ref").
      .replace(/[\u200b-\u200d\ufeff]/g, '')
      .replace(/\s+/g, ' ')
      .trim()
  );
}

/** Table E.1-1 of a PS3.15 DocBook source as rows keyed like the JSON input, and its edition. */
function rowsFromDocbook(xml) {
  const edition = /<subtitle>\s*DICOM PS3\.15 (\d{4}[a-e])\b/.exec(xml)?.[1];
  const start = xml.indexOf('xml:id="table_E.1-1"');
  if (start < 0) throw new Error('no table_E.1-1 in this DocBook source');
  const table = xml.slice(start, xml.indexOf('</table>', start));
  const cells = (tr, name) => [
    ...tr.matchAll(new RegExp(`<${name}\\b[^>]*?(?:/>|>([\\s\\S]*?)</${name}>)`, 'g')),
  ];
  const [head, ...body] = table.split(/<tr\b/).slice(1);
  const keys = cells(head, 'th').map((m) => {
    // "Retd. (from PS3.6)": the reference to another part is an empty olink, so compare the start.
    const heading = cellText(m[1] ?? '');
    const match = Object.keys(DOCBOOK_HEADINGS).find((h) => heading === h || heading.startsWith(`${h} (`));
    if (!match) throw new Error(`unexpected column heading "${heading}" in Table E.1-1`);
    return DOCBOOK_HEADINGS[match];
  });
  const rows = body.map((tr) => {
    const values = cells(tr, 'td').map((m) => cellText(m[1] ?? ''));
    if (values.length !== keys.length)
      throw new Error(`a row of ${values.length} cells: ${values.join(' | ')}`);
    const row = {};
    keys.forEach((key, i) => {
      if (values[i] !== '') row[key] = values[i];
    });
    return row;
  });
  return { rows, edition };
}

const text = readFileSync(source, 'utf8');
const fromDocbook = text.trimStart().startsWith('<');
const parsed = fromDocbook ? rowsFromDocbook(text) : { rows: JSON.parse(text), edition: undefined };
const rows = parsed.rows;
const edition = editionArg ?? parsed.edition;
if (!edition) throw new Error('give the edition: it is not in the source');
if (parsed.edition && editionArg && parsed.edition !== editionArg) {
  throw new Error(`the source is edition ${parsed.edition}, not ${editionArg}`);
}
if (!Array.isArray(rows) || rows.length < 400) throw new Error('not Table E.1-1: expected 400+ rows');

const out = [];
for (const row of rows) {
  const name = String(row.name ?? '').trim();
  const tagText = String(row.tag ?? '').trim();
  let tag;
  const m = /^\(([0-9A-FX]{4}),([0-9A-FX]{4})\)$/i.exec(tagText);
  if (m) tag = `${m[1]}${m[2]}`.toUpperCase().replace(/X/g, 'x');
  else if (/^\(GGGG,EEEE\) WHERE GGGG IS ODD$/i.test(tagText)) tag = 'private';
  else throw new Error(`unexpected tag ${tagText} (${name})`);
  const basic = String(row.basicProfile ?? '').trim();
  if (!ACTIONS.has(basic)) throw new Error(`unexpected basic profile action ${basic} for ${tagText}`);
  const options = {};
  for (const [column, key] of Object.entries(OPTION_COLUMNS)) {
    const v = row[column] === undefined ? '' : String(row[column]).trim();
    if (v === '') continue;
    if (!ACTIONS.has(v)) throw new Error(`unexpected ${column} action ${v} for ${tagText}`);
    options[key] = v;
  }
  out.push({ tag, name, basic, options });
}
out.sort((a, b) => (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0));
const tags = new Set();
for (const r of out) {
  if (tags.has(r.tag)) throw new Error(`duplicate row for ${r.tag}`);
  tags.add(r.tag);
}

const lines = [
  '// Generated by scripts/dicom-deidentification-table.mjs from DICOM PS3.15 Table E.1-1',
  `// (edition ${edition}). Do not edit by hand: regenerate from the standard's table.`,
  "import type { ProfileRow } from './profile-types';",
  '',
  `/** The edition of DICOM PS3.15 whose Table E.1-1 this is. */`,
  `export const PROFILE_EDITION = 'DICOM PS3.15 ${edition}';`,
  '',
  '/**',
  ' * Table E.1-1, one row per attribute: its tag (`GGGGEEEE`, lower-case `x` where the standard',
  ' * writes a repeating group; `private` for the odd groups), its name, the Basic Profile action and',
  ' * the action of each option that changes it.',
  ' */',
  'export const PROFILE_ROWS: readonly ProfileRow[] = [',
  ...out.map((r) => {
    const opts = Object.entries(r.options)
      .map(([k, v]) => `${k}: '${v}'`)
      .join(', ');
    return `  { tag: '${r.tag}', name: ${JSON.stringify(r.name)}, basic: '${r.basic}', options: { ${opts} } },`.replace(
      'options: {  }',
      'options: {}',
    );
  }),
  '];',
  '',
];
const target = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '../apps/server/src/dicom/deidentify/profile-table.ts',
);
writeFileSync(target, lines.join('\n'));
execFileSync('npx', ['prettier', '--write', target], { stdio: 'ignore' });
console.log(
  `${out.length} rows of Table E.1-1 (${edition}) written to ${path.relative(process.cwd(), target)}`,
);
