// dcmjs ships no type declarations; these cover its data dictionary and the writer tests use.
declare module 'dcmjs' {
  interface DictionaryEntry {
    tag: string;
    vr: string;
    name: string;
    vm?: string;
  }
  const dcmjs: {
    data: {
      DicomMetaDictionary: {
        dictionary: Record<string, DictionaryEntry>;
        nameMap: Record<string, DictionaryEntry>;
        denaturalizeDataset(dataset: Record<string, unknown>): Record<string, unknown>;
        uid(): string;
      };
      DicomDict: new (meta: Record<string, unknown>) => {
        dict: Record<string, unknown>;
        write(): ArrayBuffer;
      };
    };
  };
  export default dcmjs;
}
