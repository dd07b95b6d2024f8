export declare const SHARED_DATA: string;
export declare function sharedData(relative: string): string;
export declare function hasSharedData(...relatives: string[]): boolean;
