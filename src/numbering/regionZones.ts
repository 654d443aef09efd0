/**
 * Every federal subject of Russia, by its name in the state address register (the "Территория ГАР" column of the
 * numbering plan), with the IANA zones it spans, its capital's first. The plan names subjects, not districts, so a
 * number of a subject spanning several zones gets all of them and is sent only at instants allowed in each.
 * Which subject each zone covers is from the comments of tzdata's `europe` file (2026), also
 * summarised in `zone.tab`: only Sakha (five zones, UTC+9 to +11) and Sakhalin Oblast (its North Kuril Islands
 * keep Asia/Srednekolymsk) span several.
 */
export const SUBJECT_ZONES: Readonly<Record<string, readonly string[]>> = {
  // UTC+2
  'Калининградская область': ['Europe/Kaliningrad'],
  // UTC+3
  'Город Москва': ['Europe/Moscow'],
  'Московская область': ['Europe/Moscow'],
  'Город Санкт-Петербург': ['Europe/Moscow'],
  'Ленинградская область': ['Europe/Moscow'],
  'Город Севастополь': ['Europe/Simferopol'],
  'Республика Крым': ['Europe/Simferopol'],
  'Донецкая Народная Республика': ['Europe/Moscow'],
  'Луганская Народная Республика': ['Europe/Moscow'],
  'Запорожская область': ['Europe/Moscow'],
  'Херсонская область': ['Europe/Moscow'],
  'Белгородская область': ['Europe/Moscow'],
  'Брянская область': ['Europe/Moscow'],
  'Владимирская область': ['Europe/Moscow'],
  'Вологодская область': ['Europe/Moscow'],
  'Воронежская область': ['Europe/Moscow'],
  'Ивановская область': ['Europe/Moscow'],
  'Калужская область': ['Europe/Moscow'],
  'Костромская область': ['Europe/Moscow'],
  'Курская область': ['Europe/Moscow'],
  'Липецкая область': ['Europe/Moscow'],
  'Мурманская область': ['Europe/Moscow'],
  'Нижегородская область': ['Europe/Moscow'],
  'Новгородская область': ['Europe/Moscow'],
  'Орловская область': ['Europe/Moscow'],
  'Псковская область': ['Europe/Moscow'],
  'Рязанская область': ['Europe/Moscow'],
  'Смоленская область': ['Europe/Moscow'],
  'Тамбовская область': ['Europe/Moscow'],
  'Тверская область': ['Europe/Moscow'],
  'Тульская область': ['Europe/Moscow'],
  'Ярославская область': ['Europe/Moscow'],
  'Архангельская область': ['Europe/Moscow'],
  'Ненецкий автономный округ': ['Europe/Moscow'],
  'Республика Карелия': ['Europe/Moscow'],
  'Республика Коми': ['Europe/Moscow'],
  'Кировская область': ['Europe/Kirov'],
  'Пензенская область': ['Europe/Moscow'],
  'Республика Мордовия': ['Europe/Moscow'],
  'Чувашская Республика - Чувашия': ['Europe/Moscow'],
  'Республика Марий Эл': ['Europe/Moscow'],
  'Республика Татарстан': ['Europe/Moscow'],
  'Ростовская область': ['Europe/Moscow'],
  'Краснодарский край': ['Europe/Moscow'],
  'Республика Адыгея': ['Europe/Moscow'],
  'Ставропольский край': ['Europe/Moscow'],
  'Карачаево-Черкесская Республика': ['Europe/Moscow'],
  'Кабардино-Балкарская Республика': ['Europe/Moscow'],
  'Республика Северная Осетия - Алания': ['Europe/Moscow'],
  'Республика Ингушетия': ['Europe/Moscow'],
  'Чеченская Республика': ['Europe/Moscow'],
  'Республика Дагестан': ['Europe/Moscow'],
  'Республика Калмыкия': ['Europe/Moscow'],
  'Волгоградская область': ['Europe/Volgograd'],
  // UTC+4
  'Самарская область': ['Europe/Samara'],
  'Удмуртская Республика': ['Europe/Samara'],
  'Астраханская область': ['Europe/Astrakhan'],
  'Саратовская область': ['Europe/Saratov'],
  'Ульяновская область': ['Europe/Ulyanovsk'],
  // UTC+5
  'Свердловская область': ['Asia/Yekaterinburg'],
  'Челябинская область': ['Asia/Yekaterinburg'],
  'Курганская область': ['Asia/Yekaterinburg'],
  'Тюменская область': ['Asia/Yekaterinburg'],
  'Ханты-Мансийский автономный округ - Югра': ['Asia/Yekaterinburg'],
  'Ямало-Ненецкий автономный округ': ['Asia/Yekaterinburg'],
  'Пермский край': ['Asia/Yekaterinburg'],
  'Оренбургская область': ['Asia/Yekaterinburg'],
  'Республика Башкортостан': ['Asia/Yekaterinburg'],
  // UTC+6
  'Омская область': ['Asia/Omsk'],
  // UTC+7
  'Новосибирская область': ['Asia/Novosibirsk'],
  'Алтайский край': ['Asia/Barnaul'],
  'Республика Алтай': ['Asia/Barnaul'],
  'Томская область': ['Asia/Tomsk'],
  'Кемеровская область - Кузбасс': ['Asia/Novokuznetsk'],
  'Красноярский край': ['Asia/Krasnoyarsk'],
  'Республика Хакасия': ['Asia/Krasnoyarsk'],
  'Республика Тыва': ['Asia/Krasnoyarsk'],
  // UTC+8
  'Иркутская область': ['Asia/Irkutsk'],
  'Республика Бурятия': ['Asia/Irkutsk'],
  // UTC+9
  'Забайкальский край': ['Asia/Chita'],
  'Амурская область': ['Asia/Yakutsk'],
  // Asia/Yakutsk: most districts and Yakutsk; Asia/Khandyga: Tomponsky, Ust-Maysky (UTC+9); Asia/Vladivostok:
  // Verkhoyansky, Ust-Yansky; Asia/Ust-Nera: Oymyakonsky (UTC+10); Asia/Srednekolymsk: the six eastern districts
  // (UTC+11).
  'Республика Саха (Якутия)': [
    'Asia/Yakutsk',
    'Asia/Khandyga',
    'Asia/Vladivostok',
    'Asia/Ust-Nera',
    'Asia/Srednekolymsk',
  ],
  // UTC+10
  'Приморский край': ['Asia/Vladivostok'],
  'Хабаровский край': ['Asia/Vladivostok'],
  'Еврейская автономная область': ['Asia/Vladivostok'],
  // UTC+11
  'Магаданская область': ['Asia/Magadan'],
  // Severo-Kurilsky District (North Kuril Islands) is Asia/Srednekolymsk: the same UTC+11 today, another history.
  'Сахалинская область': ['Asia/Sakhalin', 'Asia/Srednekolymsk'],
  // UTC+12
  'Камчатский край': ['Asia/Kamchatka'],
  'Чукотский автономный округ': ['Asia/Anadyr'],
};

/** A numbering plan cell that names the whole country rather than a region: no zone of its own. */
export const WHOLE_COUNTRY = 'Российская Федерация';

/**
 * Municipal parts of a cell (`г. Норильск`, `г.о. город Псков`, `м.р-н ...`): they sit inside a subject the same cell
 * also names, so they add no zone.
 */
export function isMunicipality(piece: string): boolean {
  return /^(г\.|г\.о\.|м\.р-н|м\.о\.|с\.п\.|г\.п\.)\s/.test(piece);
}
