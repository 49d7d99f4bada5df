select "t1"."id" as "c0", "t1"."status" as "c1", "t1"."title" as "c2", "t1"."body" as "c3", "t1"."views" as "c4", cast("t1"."rating" as text) as "c5", cast("t1"."big" as text) as "c6", "t1"."featured" as "c7", "t1"."published_on" as "c8", "t1"."published" as "c9", "t1"."created" as "c10", "t1"."starts" as "c11", "t1"."data" as "c12", "t1"."tags" as "c13", "t1"."uid" as "c14", "t1"."secret" as "c15", "t1"."author" as "c16", (
  select coalesce(json_group_array("x3"."v"
      order by "x3"."s0"), json_array()) as "v"
  from (
    select "t2"."id" as "v", "t2"."id" as "s0"
    from "comments" as "t2"
    where "t2"."article" = "t1"."id"
    order by "t2"."id"
    limit ?) as "x3") as "c17", (
  select coalesce(json_group_array("x5"."v"
      order by "x5"."s0"), json_array()) as "v"
  from (
    select "t4"."id" as "v", "t4"."id" as "s0"
    from "articles_categories" as "t4"
    where "t4"."articles_id" = "t1"."id"
    order by "t4"."id"
    limit ?) as "x5") as "c18", (
  select coalesce(json_group_array("x7"."v"
      order by "x7"."s0" nulls last), json_array()) as "v"
  from (
    select "t6"."id" as "v", "t6"."sort" as "s0"
    from "articles_sections" as "t6"
    where "t6"."articles_id" = "t1"."id"
    order by "t6"."sort" nulls last
    limit ?) as "x7") as "c19"
from "articles" as "t1"
order by "t1"."id"
limit ?
-- values: [100,100,100,100]
