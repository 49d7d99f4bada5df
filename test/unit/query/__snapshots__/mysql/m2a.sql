select `t1`.`id` as `c0`, (
  select coalesce(json_arrayagg(json_array(`t2`.`collection`, json_array(`t2`.`collection`, `t2`.`item`, case when `t2`.`collection` = ? then (
            select json_array(`t3`.`title`)
            from `headings` as `t3`
            where `t2`.`collection` = ? and `t3`.`id` = `t2`.`item`) when `t2`.`collection` = ? then (
            select json_array(`t4`.`body`)
            from `texts` as `t4`
            where `t2`.`collection` = ? and `t4`.`id` = `t2`.`item`) end))
      order by `t2`.`sort` is null, `t2`.`sort`
      limit ?), json_array())
  from `articles_sections` as `t2`
  where `t2`.`articles_id` = `t1`.`id`) as `c1`
from `articles` as `t1`
order by `t1`.`id`
limit ?
-- values: ["headings","headings","texts","texts",100,100]
