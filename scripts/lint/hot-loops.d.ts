export declare const HOT_LOOP_FILES: readonly string[];
export declare const NON_NULL_CHECKED: readonly string[];
